import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `POST` whose `makeURLRequest()` gives its body as an `httpBodyStream`.
private final class StreamedBodyRequest: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
    override var httpMethod: HTTPMethod { .post }
    override func makeURLRequest() throws -> URLRequest {
        var request = try super.makeURLRequest()
        request.httpBodyStream = InputStream(data: Data("streamed body".utf8))
        return request
    }
}

/// A body given as `httpBodyStream` is refused with `invalidRequest` before anything is sent, on both
/// transports (`CONNECTIONKIT_TEST_TRANSPORT=libcurl`): libcurl would send it empty without an error.
@Suite("An httpBodyStream body is refused before sending", .offThePool, .timeLimit(.minutes(1)))
struct BodyStreamTests {
    @Test("a request with an httpBodyStream fails with invalidRequest naming it; the server sees no connection")
    func refusedBeforeSending() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/upload") { .echo($0) }
        let request = StreamedBodyRequest(server.url("/upload"))
        let endings = Endings(request)
        request.start()
        let error = try await endings.connectionError()
        await endings.queue.drain()
        #expect(endings.count == 1)
        let reason = invalidRequestReason(error)
        #expect(reason.contains("httpBodyStream"), "\(reason)")
        #expect(reason.contains("makeURLRequest()"), "names the hook: \(reason)")
        #expect(server.hits("/upload") == 0)
        #expect(server.acceptedConnectionCount == 0)
    }
}
