// swift-tools-version:6.0
import PackageDescription

// The benchmarks: their own package so that the library's build never depends on them.
// Run them with `Benchmarks/run.sh` (sets up nginx and the files they fetch), not directly.
let kit: [Target.Dependency] = [
    .product(name: "ConnectionKit", package: "ConnectionKit"),
    .product(name: "ConnectionKitTesting", package: "ConnectionKit"),
]

let package = Package(
    name: "ConnectionKitBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "ConnectionKit", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "ConnectionKitBenchmarks",
            dependencies: [
                .product(name: "ConnectionKit", package: "ConnectionKit"),
                .product(name: "ConnectionKitTesting", package: "ConnectionKit"),
            ]
        ),
        // Standalone figure programs from the feature work (each prints its own figures; see its header).
        .executableTarget(name: "RegistryBench", dependencies: kit),
        .executableTarget(name: "FileBench", dependencies: kit),
        .executableTarget(name: "ClientUpload", dependencies: kit),
        .executableTarget(name: "Soak", dependencies: kit),
        .executableTarget(name: "InspectorBench", dependencies: kit),
        .executableTarget(
            name: "InspectorSoak",
            dependencies: kit + [.product(name: "ConnectionKitInspector", package: "ConnectionKit")]),
        .executableTarget(name: "OfflineQueueBench", dependencies: kit),
        .executableTarget(name: "StreamBench", dependencies: kit),
        .executableTarget(name: "UploadBench", dependencies: kit),
        .executableTarget(name: "TLSBench", dependencies: kit),
        .executableTarget(name: "CacheBench", dependencies: kit),
        .executableTarget(name: "MiddlewareBench", dependencies: kit),
        .executableTarget(name: "FoundationCosts"),
    ],
    swiftLanguageModes: [.v6]
)
