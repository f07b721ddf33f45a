import Foundation

/// What a request asks of one transfer beside its `URLRequest`: everything a transport must either
/// honour or refuse (``Transport/prepareTransfer(_:options:)``), so that no caller needs to know which
/// transport it holds. The defaults ask for nothing special.
struct TransferOptions: Sendable {
    /// The request body, streamed from this file (`URLRequest.httpBody` is then `nil`). Default `nil`.
    var bodyFile: URL?

    /// The request body, pulled from this reader as the transfer sends it (``StreamedBody``;
    /// `URLRequest.httpBody` is then `nil`). A transport that cannot send it refuses it. Default `nil`.
    var streamedBody: StreamedBodyReader?

    /// Where the response body goes. Default ``Lane/memory``.
    var lane = Lane.memory

    /// The request class's proxy (``AnyConnectionRequest/proxy``, already checked to be a proxy's URL).
    /// `nil`, the default: the transport's own choice (libcurl reads the environment's `http_proxy`,
    /// `https_proxy` and `no_proxy`). A transport that cannot send through a proxy chosen per transfer
    /// refuses a non-`nil` one.
    var proxy: URL?

    /// The request class's TLS configuration, for an `https` transfer; `nil`, the default, for a plain
    /// `http` one (no TLS to configure). A transport refuses what it cannot honour of it.
    var tls: TLSConfiguration?

    /// The work a transfer's body makes for the transport, and so where the transport runs it.
    enum Lane: Sendable {
        /// Kept in memory or decoded as a stream: small, or paced by its receiver.
        case memory
        /// Saved to a file: a bulk download's disk writes get a lane of their own (URLSession: a second
        /// session; libcurl: a second event loop), so that they do not hold up small requests.
        case savedToFile
    }
}
