#if canImport(CCurlShim)
    import Foundation
    import FoundationNetworking

    /// The libcurl transport for the transfers of one request: every transfer it starts (each attempt
    /// and each redirect hop) carries the request's TLS settings, so pins and trust apply to every hop.
    struct CurlTLSTransport: Transport {
        let base: CurlTransport
        let settings: CurlTLSSettings

        func startTransfer(_ request: URLRequest, bodyFile: URL?, receiver: any TransferReceiver) -> any TransferHandle
        {
            base.startTransfer(request, bodyFile: bodyFile, receiver: receiver, tls: settings)
        }

        var fileTransport: any Transport {
            CurlTLSTransport(base: (base.fileTransport as? CurlTransport) ?? base, settings: settings)
        }
    }
#endif
