import Foundation

/// A deliberate misbehaviour of the server for one response. A ``TestResponse`` has none by default.
///
/// Every fault that ends the connection closes it after the misbehaviour, whatever `Connection` header was sent.
/// `delayBeforeHeaders` still applies first.
public enum TestFault: Sendable {
    /// Read the request, then close the socket without sending anything (the client sees EOF).
    case closeBeforeHeaders

    /// Read the request, then close with `SO_LINGER` 0 so the client sees a TCP reset.
    case resetBeforeHeaders

    /// Send the head with the full `Content-Length` and this many bytes of the body as it goes on the wire,
    /// then close (EOF).
    case closeAfterBodyBytes(Int)

    /// Like ``closeAfterBodyBytes(_:)``, but end with a TCP reset.
    case resetAfterBodyBytes(Int)

    /// Declare this `Content-Length`, send the actual (shorter) body, then close.
    case shortBody(declaredLength: Int)

    /// Send `"HTTP/1.1 200 OK\r\n"` and one header line, then stall until the client goes away or the
    /// server stops.
    case neverFinishHeaders

    /// Write these raw bytes instead of a response, then close.
    case notHTTP(Data)

    /// Read the request, then hold the connection open silently until the client closes or the server stops.
    case neverRespond

    /// Send a valid response whose head carries about this many extra bytes of `X-Filler-N` header lines.
    case hugeHeaders(bytes: Int)

    /// Write these bytes as the whole response. The connection then closes, unless the bytes carry a
    /// `Connection: keep-alive` header and the request did not ask to close.
    case raw(Data)
}
