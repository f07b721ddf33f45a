// swift-tools-version:6.0
import PackageDescription

// The fuzz targets: their own package so that the library's build and tests never depend on them.
// Run them with `scripts/fuzz.sh [seconds]`, which builds this package under libFuzzer and
// AddressSanitizer (`--sanitize=fuzzer --sanitize=address`) and runs every target for a bounded time.
// One binary holds every target; `FUZZ_TARGET` picks one (see FuzzTarget.swift).
let package = Package(
    name: "ConnectionKitFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "ConnectionKit", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "ConnectionKitFuzz",
            dependencies: [
                .product(name: "ConnectionKit", package: "ConnectionKit"),
                .product(name: "ConnectionKitTesting", package: "ConnectionKit"),
                .product(name: "ConnectionKitInspector", package: "ConnectionKit"),
            ],
            // libFuzzer supplies `main`; this module only defines LLVMFuzzerTestOneInput.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ],
    swiftLanguageModes: [.v6]
)
