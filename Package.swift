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
        .target(
            name: "ConnectionKit",
            dependencies: [.target(name: "CCurlShim", condition: .when(platforms: [.linux]))]),
        // libcurl found at run time (dlopen) for the optional libcurl transport: no curl headers, no -lcurl.
        .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "ConnectionKitTesting"),
        // A child process for the offline queue's crash test (killed with SIGKILL while it enqueues).
        .executableTarget(name: "OfflineQueueCrashHelper", dependencies: ["ConnectionKit"]),
        .testTarget(
            name: "ConnectionKitTests",
            dependencies: ["ConnectionKit", "ConnectionKitTesting", "OfflineQueueCrashHelper"]),
        .testTarget(name: "ConnectionKitTestingTests", dependencies: ["ConnectionKitTesting"]),
        .testTarget(
            name: "DocSnippetsTests", dependencies: ["ConnectionKit", "ConnectionKitTesting"],
            path: "Tests/DocSnippetsTests"),
    ],
    swiftLanguageModes: [.v6]
)
