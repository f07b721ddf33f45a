import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GET over the transport it is given whose `validate` keeps the response it was handed, and asks
/// for its `HTTPURLResponse` only when told to.
private final class KeepsResponse: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: immutable stored properties, and a locked box.
    let target: URL
    let chosen: ConnectionTransport
    let asksForFoundation: Bool
    let seen = Locked<ConnectionResponse?>(nil)

    init(_ target: URL, over transport: ConnectionTransport, asksForFoundation: Bool = false) {
        self.target = target
        self.chosen = transport
        self.asksForFoundation = asksForFoundation
    }

    override var url: URL? { target }
    override var transport: ConnectionTransport { chosen }

    override func validate(_ response: ConnectionResponse, data: Data?) throws {
        seen.withLock { $0 = response }
        if asksForFoundation { _ = response.httpURLResponse }
        try super.validate(response, data: data)
    }

    /// Whether the request's last response has its `HTTPURLResponse`, without building it.
    var builtFoundationResponse: Bool? { storage.withLock { $0.response }?.hasHTTPResponse }
}

/// The response value the hooks take: fields found in any case, the same on both transports, and no
/// Foundation `HTTPURLResponse` built unless user code asks for one.
@Suite(.offThePool, .timeLimit(.minutes(3)))
struct ConnectionResponseTests {
    static func transports() throws -> [ConnectionTransport] {
        [.urlSession, try ConnectionTransport.libcurl()]
    }

    private static func serve() throws -> TestServer {
        let server = try TestServer.started()
        server.route("/head") { _ in
            TestResponse(
                headers: [
                    TestHeader("Content-Type", "Application/JSON; charset=utf-8"), TestHeader("x-request-ID", "abc-7"),
                ],
                body: .data(Data("{}".utf8)))
        }
        return server
    }

    @Test func headerFieldsAreFoundWhateverTheirCase() throws {
        let response = ConnectionResponse(
            url: URL(string: "http://127.0.0.1/a"), statusCode: 201,
            headerFields: ["Content-Type": "text/Plain ; charset=utf-8", "x-request-id": "7", "ETag": "\"v1\""])
        for name in ["x-request-id", "X-Request-ID", "X-REQUEST-ID"] {
            #expect(response.value(forHTTPHeaderField: name) == "7", "\(name)")
        }
        #expect(response.value(forHTTPHeaderField: "etag") == "\"v1\"")
        #expect(response.value(forHTTPHeaderField: "content-TYPE") == "text/Plain ; charset=utf-8")
        #expect(response.value(forHTTPHeaderField: "x-request-i") == nil)
        #expect(response.value(forHTTPHeaderField: "x-request-idd") == nil)
        #expect(response.value(forHTTPHeaderField: "Location") == nil)
        #expect(response.mimeType == "text/plain")
        #expect(response.expectedContentLength == -1)
        #expect(response.statusCode == 201 && response.httpVersion == "HTTP/1.1")
        #expect(response.httpURLResponse?.value(forHTTPHeaderField: "X-Request-Id") == "7")
    }

    @Test(arguments: try transports())
    func hooksSeeTheResponse(over transport: ConnectionTransport) async throws {
        let server = try Self.serve()
        defer { server.stop() }
        let request = KeepsResponse(server.url("/head"), over: transport)
        _ = try await request.value()
        let response = try #require(request.seen.withLock { $0 })
        #expect(response.statusCode == 200)
        #expect(response.url?.path == "/head")
        #expect(response.value(forHTTPHeaderField: "X-Request-Id") == "abc-7")
        #expect(response.value(forHTTPHeaderField: "CONTENT-TYPE") == "Application/JSON; charset=utf-8")
        #expect(response.mimeType == "application/json")
        #expect(response.expectedContentLength == 2)
        let metrics = try #require(response.metrics)
        #expect(metrics.attempt == 1 && metrics.responseStart != nil && metrics.end != nil)
        if transport.name != ConnectionTransport.urlSession.name {
            #expect(response.httpVersion == "HTTP/1.1")
            #expect(metrics.remoteAddress == "127.0.0.1")
        }
    }

    @Test func noHTTPURLResponseIsBuiltUnlessUserCodeAsks() async throws {
        let server = try Self.serve()
        defer { server.stop() }
        let libcurl = try ConnectionTransport.libcurl()

        let plain = KeepsResponse(server.url("/head"), over: libcurl)
        _ = try await plain.value()
        #expect(plain.builtFoundationResponse == false)
        // Asked for afterwards: built then, once, and the hook's value hands out the same object.
        let built = try #require(plain.urlResponse)
        #expect(plain.builtFoundationResponse == true)
        #expect(plain.seen.withLock { $0 }?.httpURLResponse === built)
        #expect(built.value(forHTTPHeaderField: "x-request-id") == "abc-7")

        let asking = KeepsResponse(server.url("/head"), over: libcurl, asksForFoundation: true)
        _ = try await asking.value()
        #expect(asking.builtFoundationResponse == true)
    }
}
