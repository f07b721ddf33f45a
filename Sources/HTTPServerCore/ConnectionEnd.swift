import Foundation

/// Why a connection thread stops talking to its client early.
package enum ConnectionEnd: Error {
    /// `TestServer.stop()` was called; drop everything and close.
    case serverStopping
    /// The peer closed or reset the connection, or a socket call failed with this errno.
    case ioFailure(Int32)
    /// The peer closed before a complete request arrived.
    case truncatedRequest
    /// The request head grew past the limit; answer 431 and close.
    case headersTooLarge
    /// The request could not be parsed; answer 400 and close.
    case malformedRequest
    /// The request did not arrive whole before the reader's deadline (``HTTPRequestReader/Limits/requestTimeout``).
    case timedOut
}
