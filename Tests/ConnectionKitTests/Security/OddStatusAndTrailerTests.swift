import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(CCurlShim)
    import CCurlShim
#endif

/// A status line without a reason phrase and a chunked body with trailer fields: valid HTTP/1.1 (RFC 9112
/// §4 makes the reason optional, §7.1.2 allows trailers) that FoundationNetworking cannot read. Run on both
/// transports (`CONNECTIONKIT_TEST_TRANSPORT=libcurl`).
@Suite(.offThePool, .timeLimit(.minutes(2))) struct OddStatusAndTrailerTests {
    private static var onLibcurl: Bool { ConnectionTransport.default.name == "libcurl" }

    #if canImport(CCurlShim)
        /// libcurl 7 under the libcurl transport: it lets a transfer keep its body coded once the head is read.
        private static var onLibcurl7: Bool { onLibcurl && ccurl_version_number() < 0x08_00_00 }
    #else
        private static var onLibcurl7: Bool { false }
    #endif

    /// Checks that `ending` is a `badServerResponse` transport error whose message names `problem`.
    private func expectBadServerResponse(
        _ ending: Ending?, naming problem: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = ending?.error, error.urlError?.code == .badServerResponse else {
            Issue.record(
                "expected URLError.badServerResponse, got \(String(describing: ending))", sourceLocation: sourceLocation
            )
            return
        }
        #expect(error.description.contains(problem), "\(error.description)", sourceLocation: sourceLocation)
    }

    private func ending(of bytes: String) async throws -> Ending? {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/r") { _ in TestResponse(fault: .raw(Data(bytes.utf8))) }
        return await run(RetryingRequest(URLRequest(url: server.url("/r"))))
    }

    @Test("HTTP/1.1 200 without a reason phrase: read on libcurl, a typed badServerResponse on URLSession")
    func statusLineWithoutReason() async throws {
        let ending = try await ending(of: "HTTP/1.1 200\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        if Self.onLibcurl {
            #expect(ending?.data == Data("ok".utf8), "\(String(describing: ending))")
            return
        }
        expectBadServerResponse(ending, naming: "reason phrase")
    }

    @Test("a header field whose value is only blanks: read on libcurl, a badServerResponse naming it on URLSession")
    func headerValueOfBlanksOnly() async throws {
        let ending = try await ending(
            of: "HTTP/1.1 200 OK\r\nX-Blank: \t \r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        if Self.onLibcurl {
            #expect(ending?.data == Data("ok".utf8), "\(String(describing: ending))")
            return
        }
        expectBadServerResponse(ending, naming: "only blanks")
    }

    @Test("a NUL byte in a header field fails as badServerResponse on both transports, never an unknown error")
    func nulByteInHeaderField() async throws {
        let ending = try await ending(
            of: "HTTP/1.1 200 OK\r\nSet-Cookie: a=b\u{0}c\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        expectBadServerResponse(ending, naming: "not valid HTTP")
    }

    // FoundationNetworking always decodes, and fails on a coding it does not know (docs/caching.md).
    @Test(
        "a body in a content or transfer coding libcurl does not know arrives as sent on libcurl 7, its coding named",
        .enabled(if: onLibcurl7),
        arguments: [
            "Content-Encoding: x-unheard-of", "Transfer-Encoding: x-unheard-of", "Content-Encoding: gzip, x-rot",
        ])
    func unknownCodingKeptAsSent(field: String) async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        let head = "HTTP/1.1 200 OK\r\n\(field)\r\nConnection: close\r\n\r\n"
        server.route("/r") { _ in TestResponse(fault: .raw(Data((head + "as sent").utf8))) }
        let request = RetryingRequest(URLRequest(url: server.url("/r")))
        let ending = await run(request)
        #expect(ending?.data == Data("as sent".utf8), "\(String(describing: ending))")
        let name = String(field.prefix { $0 != ":" })
        #expect(request.urlResponse?.value(forHTTPHeaderField: name) == String(field.dropFirst(name.count + 2)))
    }

    // FoundationNetworking stops the process on this response (docs/linux.md): libcurl only.
    @Test(
        "a chunked body with trailer fields completes on libcurl",
        .enabled(if: ConnectionTransport.default.name == "libcurl"))
    func chunkedBodyWithTrailers() async throws {
        let ending = try await ending(
            of: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\nConnection: close\r\n\r\n"
                + "2\r\nok\r\n3\r\n!!!\r\n0\r\nX-Checksum: abc\r\n\r\n")
        #expect(ending?.data == Data("ok!!!".utf8), "\(String(describing: ending))")
    }
}
