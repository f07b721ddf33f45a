import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response as a transport hands it over (``TransferReceiver``): its status and header fields at once,
/// its Foundation `HTTPURLResponse` built on first use.
///
/// Building an `HTTPURLResponse` on Linux canonicalises every field name and looks three fields up
/// through `NSString`: about a sixth of a small GET's CPU on the libcurl transport, all of it on the
/// transport's one loop thread, where it held back every other transfer. What is checked when a response
/// arrives needs only the status and the fields (``ResponseHead``), so the `HTTPURLResponse` is built
/// later, on the processing queue when the body is validated, or by whatever asks for it first.
final class TransportResponse: Sendable {
    let statusCode: Int
    let head: ResponseHead
    /// What the `HTTPURLResponse` is built from; `nil` when the transport handed one over.
    private let parsed: (url: URL, httpVersion: String?)?
    private let built: Locked<HTTPURLResponse?>

    /// A response a transport received as an `HTTPURLResponse` (URLSession).
    init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        head = ResponseHead(response)
        parsed = nil
        built = Locked(response)
    }

    /// A response a transport parsed itself, with the fields as it joined them.
    init(url: URL, statusCode: Int, httpVersion: String?, head: ResponseHead) {
        self.statusCode = statusCode
        self.head = head
        parsed = (url, httpVersion)
        built = Locked(nil)
    }

    /// The Foundation response (the same object on every call), or `nil` when Foundation refuses to make
    /// one (its initialiser is failable; FoundationNetworking's never fails).
    var httpResponse: HTTPURLResponse? {
        built.withLock { built in
            guard built == nil, let parsed else { return built }
            built = HTTPURLResponse(
                url: parsed.url, statusCode: statusCode, httpVersion: parsed.httpVersion, headerFields: head.fields)
            return built
        }
    }
}
