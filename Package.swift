// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ConnectionKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ConnectionKit", targets: ["ConnectionKit"]),
        .library(name: "ConnectionKitTesting", targets: ["ConnectionKitTesting"]),
    ],
    targets: [
        .target(name: "ConnectionKit"),
        .target(name: "ConnectionKitTesting"),
        // A child process for the offline queue's crash test (killed with SIGKILL while it enqueues).
        .executableTarget(name: "OfflineQueueCrashHelper", dependencies: ["ConnectionKit"]),
        .testTarget(
            name: "ConnectionKitTests",
            dependencies: ["ConnectionKit", "ConnectionKitTesting", "OfflineQueueCrashHelper"]),
        .testTarget(name: "ConnectionKitTestingTests", dependencies: ["ConnectionKitTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
