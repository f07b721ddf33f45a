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
        // A second process for the tests: concurrent credential-file writers, a process environment of its own.
        .executableTarget(
            name: "ChildProcessHelper", dependencies: ["ConnectionKit"], path: "Tests/ChildProcessHelper"),
        .testTarget(
            name: "ConnectionKitTests",
            dependencies: ["ConnectionKit", "ConnectionKitTesting", "OfflineQueueCrashHelper", "ChildProcessHelper"]),
        .testTarget(name: "ConnectionKitTestingTests", dependencies: ["ConnectionKitTesting"]),
        .testTarget(
            name: "DocSnippetsTests", dependencies: ["ConnectionKit", "ConnectionKitTesting"],
            path: "Tests/DocSnippetsTests"),
    ],
    swiftLanguageModes: [.v6]
)
