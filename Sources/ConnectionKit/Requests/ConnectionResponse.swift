import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response as the hooks see it: the status, the HTTP version, the URL, the header fields (looked
/// up in any case) and what the transport measured, without a Foundation `HTTPURLResponse`.
///
/// ``AnyConnectionRequest/validate(_:data:)``, ``ConnectionRequest/parseCompletionData(_:response:)``,
/// ``StreamingConnectionRequest/makeDecoder(for:)``, ``AnyConnectionRequest/retryDecision(for:attempt:response:)``
/// and ``RetryPolicy/retryAfterDelay(from:now:)`` take one. It reads like an `HTTPURLResponse`
/// (`statusCode`, `url`, `value(forHTTPHeaderField:)`, `mimeType`, `expectedContentLength`), so an
/// override written for one usually compiles unchanged with the new parameter type.
///
/// Building an `HTTPURLResponse` on Linux is costly (it canonicalises every field name; the figure is in
/// the benchmarks guide, `FoundationCosts`): ConnectionKit builds one only when your code asks
/// for it, through ``httpURLResponse`` or ``AnyConnectionRequest/urlResponse``, and then once.
/// - SeeAlso: <doc:endpoints>
public struct ConnectionResponse: Sendable {
    /// The response as the transport handed it over; it holds the `HTTPURLResponse` once built.
    let transported: TransportResponse

    /// What the transport and ConnectionKit measured about the attempt, as far as known when the hook
    /// runs: in ``AnyConnectionRequest/validate(_:data:)``, ``ConnectionRequest/parseCompletionData(_:response:)``
    /// and ``AnyConnectionRequest/retryDecision(for:attempt:response:)`` the transfer is over, so the
    /// connection-level details are there where the transport reports them (see ``ConnectionAttemptMetrics``);
    /// in ``StreamingConnectionRequest/makeDecoder(for:)`` the body has not arrived yet. `nil` for a
    /// response made with one of the initialisers and no metrics.
    public let metrics: ConnectionAttemptMetrics?

    init(_ transported: TransportResponse, metrics: ConnectionAttemptMetrics?) {
        self.transported = transported
        self.metrics = metrics
    }

    /// A response made of its parts, e.g. to test a hook without a server.
    public init(
        url: URL?, statusCode: Int, httpVersion: String? = "HTTP/1.1", headerFields: [String: String] = [:],
        metrics: ConnectionAttemptMetrics? = nil
    ) {
        transported = TransportResponse(
            url: url, statusCode: statusCode, httpVersion: httpVersion, head: ResponseHead(fields: headerFields))
        self.metrics = metrics
    }

    /// A response made of its field lines in order, repeats apart (as the libcurl transport hands them over),
    /// e.g. to test a hook that reads several `Set-Cookie` fields without a server.
    public init(
        url: URL?, statusCode: Int, httpVersion: String? = "HTTP/1.1", headerFieldLines: [ResponseHeaderField],
        metrics: ConnectionAttemptMetrics? = nil
    ) {
        transported = TransportResponse(
            url: url, statusCode: statusCode, httpVersion: httpVersion, head: ResponseHead(lines: headerFieldLines))
        self.metrics = metrics
    }

    /// The response of a Foundation `HTTPURLResponse` (kept: ``httpURLResponse`` returns it).
    public init(_ response: HTTPURLResponse, metrics: ConnectionAttemptMetrics? = nil) {
        transported = TransportResponse(response)
        self.metrics = metrics
    }

    /// Where the response came from: ``ResponseSource/network``, or the class's ``AnyConnectionRequest/httpCache``
    /// (a hit, a revalidated response, or a stale one). A response made with one of the initialisers says
    /// ``ResponseSource/network``.
    public var source: ResponseSource { transported.source }

    /// The status code, e.g. 200.
    public var statusCode: Int { transported.statusCode }

    /// The HTTP version of the status line, e.g. `HTTP/1.1`; `nil` when the transport does not say
    /// (URLSession's `HTTPURLResponse` does not carry it: ``metrics``' `httpVersion` may, as `http/1.1`, `h2`).
    public var httpVersion: String? { transported.httpVersion }

    /// The URL the response came from (after redirects, the last hop's).
    public var url: URL? { transported.url }

    /// The header fields joined, one entry per name (repeated fields joined with `, `, as RFC 9110 §5.3
    /// allows for every field but `Set-Cookie`), names in the case the server (or the transport) wrote them.
    /// Look a field up with ``value(forHTTPHeaderField:)``, which ignores case; read `Set-Cookie` with
    /// ``values(forHTTPHeaderField:)``, since a cookie's `Expires` date holds a comma too.
    public var headerFields: [String: String] { transported.head.fields }

    /// The header field lines in the order received, a repeated field once per line, when
    /// ``keepsRepeatedFieldsApart``; otherwise (URLSession, whose `HTTPURLResponse` joins repeated fields
    /// before ConnectionKit sees them, a response from the cache, one made from a dictionary) one line per
    /// entry of ``headerFields``, sorted by name.
    public var headerFieldLines: [ResponseHeaderField] { transported.head.lines }

    /// Whether ``headerFieldLines`` holds each field line as the server sent it: `true` on the libcurl
    /// transport, `false` on URLSession, for a response served from the cache and for one made from
    /// a `[String: String]` or an `HTTPURLResponse`.
    public var keepsRepeatedFieldsApart: Bool { transported.head.linesApart }

    /// The value of each field line named `name` (in any case), in the order received; empty when there is
    /// none. With ``keepsRepeatedFieldsApart`` `false`, the one joined value, except for `Set-Cookie`, whose
    /// joined value is split again as a browser splits it: a comma starts a new cookie only where `name=`
    /// follows it (an `Expires` date stays whole; a value holding `, x=` is cut there, and a field without
    /// `=` is glued onto its neighbour: <doc:linux> lists what stays ambiguous).
    public func values(forHTTPHeaderField name: String) -> [String] {
        transported.head.values(forName: name)
    }

    /// The value of the header field `name`, whatever the case of either (`content-type` finds
    /// `Content-Type`); `nil` when there is none.
    public func value(forHTTPHeaderField name: String) -> String? {
        transported.head.value(forName: name)
    }

    /// The media type of `Content-Type` without its parameters, in lower case, e.g. `application/json`;
    /// `nil` without a `Content-Type`.
    public var mimeType: String? {
        guard let contentType = value(forHTTPHeaderField: "Content-Type") else { return nil }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = mediaType.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed.lowercased()
    }

    /// The `Content-Length` the server declared, or -1 when it declared none (as `HTTPURLResponse` has it).
    /// With a `Content-Encoding`, this is the encoded size, not the size of the body your code gets.
    public var expectedContentLength: Int64 {
        transported.head.contentLength.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    /// The Foundation `HTTPURLResponse` of this response, built on the first call (the same object on
    /// every call, and the one ``AnyConnectionRequest/urlResponse`` returns); `nil` when Foundation refuses
    /// to make one. Costly on Linux the first time: read the properties above when they do.
    public var httpURLResponse: HTTPURLResponse? { transported.httpResponse }
}
