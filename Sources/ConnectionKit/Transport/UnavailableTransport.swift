import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport of a client whose own transport could not be made (libcurl missing or too old, or not
/// Linux): it refuses every transfer with `transportUnavailable`, so that the client itself can be created
/// where clients are declared (a `static let`) and the reason reaches each request as a typed error.
struct UnavailableTransport: Transport {
    /// Why the transport cannot run, as ``ConnectionTransport/UnavailableError/reason`` said it.
    let reason: String

    func prepareTransfer(_ request: URLRequest, options: TransferOptions) throws(ConnectionError)
        -> any PreparedTransfer
    {
        throw ConnectionError(.transportUnavailable(reason: reason))
    }
}
