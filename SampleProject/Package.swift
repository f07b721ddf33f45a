// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SampleProject",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "ConnectionKit", path: "..")],
    targets: [
        .executableTarget(
            name: "TagAlong",
            dependencies: [
                .product(name: "ConnectionKit", package: "ConnectionKit"),
                .product(name: "ConnectionKitTesting", package: "ConnectionKit"),
                .product(name: "ConnectionKitInspector", package: "ConnectionKit"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
