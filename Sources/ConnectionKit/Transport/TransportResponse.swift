import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response as a transport hands it over (``TransferReceiver``): its status and header fields at once,
/// its Foundation `HTTPURLResponse` built on first use.
///
/// Building an `HTTPURLResponse` on Linux canonicalises every field name and looks three fields up
/// through `NSString`: about a sixth of a small GET's CPU on the libcurl transport. What ConnectionKit
/// checks and what the hooks read needs only the status and the fields (``ResponseHead``, handed to the
/// hooks inside a ``ConnectionResponse``), so the `HTTPURLResponse` is built only when user code asks
/// for one (``ConnectionResponse/httpURLResponse``, ``AnyConnectionRequest/urlResponse``).
final class TransportResponse: Sendable {
    let statusCode: Int
    let head: ResponseHead
    let url: URL?
    /// As the status line has it (`HTTP/1.1`); `nil` when the transport does not say (URLSession).
    let httpVersion: String?
    /// Where the response came from: the network, or the class's cache.
    let source: ResponseSource
    /// Whether ``httpResponse`` can build the `HTTPURLResponse` (a transport that parsed the head itself).
    private let buildable: Bool
    private let built: Locked<HTTPURLResponse?>

    /// A response a transport received as an `HTTPURLResponse` (URLSession).
    init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        head = ResponseHead(response)
        url = response.url
        httpVersion = nil
        source = .network
        buildable = false
        built = Locked(response)
    }

    /// A response a transport parsed itself, with the fields as it joined them.
    init(url: URL?, statusCode: Int, httpVersion: String?, head: ResponseHead, source: ResponseSource = .network) {
        self.statusCode = statusCode
        self.head = head
        self.url = url
        self.httpVersion = httpVersion
        self.source = source
        buildable = true
        built = Locked(nil)
    }

    /// The Foundation response (the same object on every call), or `nil` when Foundation refuses to make
    /// one (its initialiser is failable; FoundationNetworking's never fails, but needs a URL).
    var httpResponse: HTTPURLResponse? {
        built.withLock { built in
            guard built == nil, buildable, let url else { return built }
            built = HTTPURLResponse(
                url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: head.fields)
            return built
        }
    }

    /// Whether the `HTTPURLResponse` exists: handed over by the transport, or built because someone asked.
    var hasHTTPResponse: Bool { built.withLock { $0 != nil } }
}
