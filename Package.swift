// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ConnectionKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "ConnectionKit", targets: ["ConnectionKit"]),
        .library(name: "ConnectionKitTesting", targets: ["ConnectionKitTesting"]),
        .library(name: "ConnectionKitInspector", targets: ["ConnectionKitInspector"]),
    ],
    targets: [
        .target(
            name: "ConnectionKit",
            dependencies: [.target(name: "CCurlShim", condition: .when(platforms: [.linux]))]),
        // libcurl found at run time (dlopen) for the optional libcurl transport: no curl headers, no -lcurl.
        .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // The HTTP/1.1 server core shared by ConnectionKitTesting and ConnectionKitInspector (no product).
        .target(name: "HTTPServerCore"),
        .target(name: "ConnectionKitTesting", dependencies: ["HTTPServerCore"]),
        .target(name: "ConnectionKitInspector", dependencies: ["ConnectionKit", "HTTPServerCore"]),
        // A process running requests with its inspector on, for the browser test (scripts/inspector-browser-test.py).
        .executableTarget(
            name: "InspectorDemo", dependencies: ["ConnectionKit", "ConnectionKitTesting", "ConnectionKitInspector"]),
        // A child process for the offline queue's crash test (killed with SIGKILL while it enqueues).
        .executableTarget(
            name: "OfflineQueueCrashHelper", dependencies: ["ConnectionKit"], path: "Tests/OfflineQueueCrashHelper"),
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
            name: "ConnectionKitInspectorTests",
            dependencies: ["ConnectionKit", "ConnectionKitTesting", "ConnectionKitInspector"]),
        .testTarget(
            name: "DocSnippetsTests", dependencies: ["ConnectionKit", "ConnectionKitTesting", "ConnectionKitInspector"],
            path: "Tests/DocSnippetsTests"),
    ],
    swiftLanguageModes: [.v6]
)
