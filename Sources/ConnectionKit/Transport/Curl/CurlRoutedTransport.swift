#if canImport(CCurlShim)
    import Foundation
    import FoundationNetworking

    /// How one request class's transfers leave the libcurl transport: through its proxy, with its TLS
    /// settings. The default route is the environment's proxy and the system trust.
    struct CurlRoute: Sendable {
        /// The class's proxy; `nil` lets libcurl read the environment's.
        var proxy: URL?
        /// The class's TLS settings, for `https` transfers.
        var tls = CurlTLSSettings.system
    }

    /// The libcurl transport with a class's ``CurlRoute``: what the request side starts transfers on
    /// when a class sets a proxy or TLS settings. Its bodies saved to a file take the same route.
    struct CurlRoutedTransport: Transport {
        let base: CurlTransport
        var route: CurlRoute

        func startTransfer(_ request: URLRequest, bodyFile: URL?, receiver: any TransferReceiver) -> any TransferHandle
        {
            base.startTransfer(request, bodyFile: bodyFile, receiver: receiver, route: route)
        }

        var fileTransport: any Transport { CurlRoutedTransport(base: base.fileCurlTransport, route: route) }

        /// `transport` as a routed libcurl transport, or `nil` when it is another kind of transport.
        static func routing(_ transport: any Transport) -> CurlRoutedTransport? {
            if let routed = transport as? CurlRoutedTransport { return routed }
            if let curl = transport as? CurlTransport { return CurlRoutedTransport(base: curl, route: CurlRoute()) }
            return nil
        }
    }
#endif
