/// A POSIX call failed while setting up a listener: the call's name and `errno`. Each server maps it
/// to its own public error.
package struct SocketFailure: Error, Sendable {
    /// The failed call, e.g. `bind`.
    package var operation: String
    /// The system error number.
    package var errno: Int32

    package init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }
}
