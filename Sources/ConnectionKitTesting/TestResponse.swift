import Foundation

/// What a route handler answers: status, headers, body, an optional delay and an optional ``TestFault``.
///
/// Framing headers are added for you: `Content-Length` for `.data`, `.drip` and `.generated` bodies (unless the
/// headers already have one or a fault declares another) and `Transfer-Encoding: chunked` for `.chunked` bodies.
/// A `Connection: close` header makes the server close the connection after this response.
public struct TestResponse: Sendable {
    // MARK: - Properties

    /// The status code. Default 200.
    public var status: Int

    /// Header lines sent in this order, before the framing headers the server adds. Default none.
    public var headers: [TestHeader]

    /// The body. Default `.data(Data())`.
    public var body: TestBody

    /// Seconds the server waits before it sends anything (or acts on the fault). Default 0.
    /// `TestServer.stop()` cuts the wait short.
    public var delayBeforeHeaders: TimeInterval

    /// A deliberate misbehaviour. Default `nil` (a well-formed response).
    public var fault: TestFault?

    // MARK: - Init

    /// Creates a response. Defaults: 200, no headers, empty body, no delay, no fault.
    public init(
        status: Int = 200,
        headers: [TestHeader] = [],
        body: TestBody = .data(Data()),
        delayBeforeHeaders: TimeInterval = 0,
        fault: TestFault? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delayBeforeHeaders = delayBeforeHeaders
        self.fault = fault
    }

    // MARK: - Conveniences

    /// A UTF-8 text body with `Content-Type: text/plain; charset=utf-8`. Status defaults to 200.
    public static func text(_ s: String, status: Int = 200) -> TestResponse {
        TestResponse(
            status: status,
            headers: [TestHeader("Content-Type", "text/plain; charset=utf-8")],
            body: .data(Data(s.utf8))
        )
    }

    /// `value` encoded by a `JSONEncoder` with `.sortedKeys`, with `Content-Type: application/json`.
    /// Status defaults to 200. If encoding fails, the answer is a 500 whose text body names the error.
    public static func json(_ value: some Encodable, status: Int = 200) -> TestResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return jsonData(try encoder.encode(value), status: status)
        } catch {
            return .text("TestResponse.json could not encode the value: \(error)", status: 500)
        }
    }

    /// `raw` sent as-is with `Content-Type: application/json`; it is not validated, so it may be malformed
    /// on purpose. Status defaults to 200.
    public static func jsonString(_ raw: String, status: Int = 200) -> TestResponse {
        jsonData(Data(raw.utf8), status: status)
    }

    /// A bare status. A non-empty `body` (default `""`) is sent as `text/plain; charset=utf-8`.
    public static func status(_ code: Int, body: String = "") -> TestResponse {
        body.isEmpty ? TestResponse(status: code) : .text(body, status: code)
    }

    /// Echoes `request` back: 200, `Content-Type: application/json`, body `JSONEncoder().encode(request)`
    /// (default strategies, so `JSONDecoder().decode(TestRequest.self, from:)` reads it back).
    /// If encoding fails, the answer is a 500 whose text body names the error.
    public static func echo(_ request: TestRequest) -> TestResponse {
        do {
            return jsonData(try JSONEncoder().encode(request), status: 200)
        } catch {
            return .text("TestResponse.echo could not encode the request: \(error)", status: 500)
        }
    }

    /// A redirect to `location` (sent verbatim in the `Location` header) with an empty body.
    /// Status defaults to 302.
    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(status: status, headers: [TestHeader("Location", location)])
    }

    private static func jsonData(_ data: Data, status: Int) -> TestResponse {
        TestResponse(status: status, headers: [TestHeader("Content-Type", "application/json")], body: .data(data))
    }
}
