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
        // The README's and the guides' endpoints as a user writes them, in a module of their own; warnings are
        // errors here even in a plain `swift build --build-tests` (unsafeFlags are allowed in a root package's
        // test target, and a package that depends on ConnectionKit never builds it).
        .testTarget(
            name: "UserCodeTests", dependencies: ["ConnectionKit", "ConnectionKitTesting"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]),
        .testTarget(
            name: "DocSnippetsTests", dependencies: ["ConnectionKit", "ConnectionKitTesting"],
            path: "Tests/DocSnippetsTests"),
    ],
    swiftLanguageModes: [.v6]
)
