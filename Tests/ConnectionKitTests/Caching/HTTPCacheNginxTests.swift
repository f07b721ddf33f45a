import ConnectionKit
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cache against nginx's own validators on a static file: run on both transports
/// (`CONNECTIONKIT_TEST_TRANSPORT=libcurl` for libcurl).
@Suite("The HTTP cache against nginx's ETag and Last-Modified", .offThePool, .timeLimit(.minutes(2)))
struct HTTPCacheNginxTests {
    @Test(
        "nginx static file: the second GET is conditional (If-None-Match, If-Modified-Since), answered 304, body byte-identical"
    )
    func staticFileRevalidated() async throws {
        let fixture = try await TLSFixture.made(makingCertificates: false)
        defer { fixture.stop() }
        let port = try await fixture.startStaticFileNginx()
        let body = HTTPCacheWireTests.randomBody(64 * 1024)
        try body.write(to: fixture.file("static/report.bin"))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/report.bin"))
        let client = HTTPCacheWireTests.client
        // nginx sends no Cache-Control: its Last-Modified (now) gives a heuristic lifetime of about 0 s, and
        // the request's max-age=0 asks for revalidation in any case.
        let first = CachedFetch(url, client: client)
        #expect(try await first.value() == body)
        #expect(first.urlResponse?.value(forHTTPHeaderField: "ETag") != nil)
        let second = CachedFetch(url, client: client, headers: ["Cache-Control": "max-age=0"])
        #expect(try await second.value() == body)
        #expect(second.responseSource == .revalidated)
        #expect(second.urlResponse?.statusCode == 200)
        let log = await fixture.accessLog(atLeast: 2)
        #expect(log.count == 2)
        // The first GET carries no validator (no quoted ETag, no date); the second both.
        let plain = log.first ?? ""
        #expect(plain.hasPrefix("GET /report.bin 200 inm="))
        #expect(!plain.contains("\"") && !plain.contains("GMT"))
        let conditional = log.dropFirst().first ?? ""
        #expect(conditional.hasPrefix("GET /report.bin 304 inm=\""))
        #expect(conditional.hasSuffix(" GMT"))
    }
}
