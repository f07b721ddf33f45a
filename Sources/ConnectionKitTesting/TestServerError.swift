import Foundation

/// Why ``TestServer/start()`` failed.
public enum TestServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A POSIX call failed while setting up the listener; `errno` is the system error number.
    case socketFailure(operation: String, errno: Int32)

    /// `start()` was called on a server that is already running. Call `stop()` first.
    case alreadyRunning

    /// A readable explanation, naming the failed call and its `strerror` text.
    public var description: String {
        switch self {
        case .socketFailure(let operation, let code):
            return "TestServer: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .alreadyRunning:
            return "TestServer: start() called while the server is already running"
        }
    }
}
