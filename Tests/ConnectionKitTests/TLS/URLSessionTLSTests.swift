import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

/// URLSession cannot honour a class's TLS configuration beyond the default (on Linux at all; on Apple
/// platforms not yet): such a class fails before anything is sent, with an error that names libcurl.
@Suite("TLS over URLSession", .offThePool, .timeLimit(.minutes(2)))
struct URLSessionTLSTests {
    static let configurations: [(String, TLSConfiguration)] = [
        ("pins", TLSConfiguration(pinnedPublicKeys: [String(repeating: "A", count: 43) + "="])),
        ("a custom CA", TLSConfiguration(trust: .only([.bytes(Data("-----BEGIN CERTIFICATE-----".utf8))]))),
        (
            "a client certificate",
            TLSConfiguration(clientCertificate: .init(certificate: .bytes(Data()), key: .bytes(Data())))
        ),
        ("TLS 1.3 at least", TLSConfiguration(minimumVersion: .tls13)),
        ("no verification", .insecureForTestsOnly),
    ]

    @Test(
        "a class asking for pins, a CA, a client certificate, TLS 1.3 or no verification fails before sending over URLSession",
        arguments: 0..<configurations.count)
    func refusedBeforeSending(index: Int) async throws {
        let (name, configuration) = Self.configurations[index]
        let port = try LoopbackPort(reusable: false, listening: true)
        let url = try #require(URL(string: "https://127.0.0.1:\(port.port)/"))
        let outcome = await TLSProbe.outcome(TLSProbe(url, tls: configuration, overURLSession: true))
        #expect(outcome.tlsFailure?.reason == .unsupported, "\(name): \(outcome)")
        #if os(Linux)
            #expect(outcome.tlsFailure?.message.contains("libcurl") == true, "\(name): \(outcome)")
        #endif
        #expect(!port.hasPendingConnection, "\(name): the server saw a connection")
    }

    @Test("a plain http request of such a class is sent over URLSession as usual (no TLS to configure)")
    func plainHTTPIsUnaffected() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/plain") { _ in .text("plain") }
        let pinned = TLSConfiguration(pinnedPublicKeys: [String(repeating: "A", count: 43) + "="])
        let outcome = await TLSProbe.outcome(TLSProbe(server.url("/plain"), tls: pinned, overURLSession: true))
        #expect(outcome.body == "plain", "\(outcome)")
    }

    @Test("the default configuration asks nothing of URLSession beyond what it does")
    func defaultIsPlain() {
        #expect(TLSConfiguration.default.beyondDefault == nil)
        #expect(TLSConfiguration(minimumVersion: .tls12).beyondDefault == nil)
        #expect(TLSConfiguration(allowsRedirectsToHTTP: true).beyondDefault == nil)
    }

    @Test("the redirect rule, on every transport: https → http is refused unless allowed; other hops pass")
    func redirectRule() throws {
        let https = try #require(URL(string: "https://a.example/x"))
        let http = try #require(URL(string: "http://a.example/y"))
        let refusal = TLSRouting.redirectRefusal(from: https, to: http, tls: .default)
        guard let failure = refusal?.tlsFailure else {
            Issue.record("expected a TLS refusal, got \(String(describing: refusal))")
            return
        }
        #expect(failure.reason == .insecureRedirect)
        #expect(
            TLSRouting.redirectRefusal(from: https, to: http, tls: TLSConfiguration(allowsRedirectsToHTTP: true)) == nil
        )
        #expect(TLSRouting.redirectRefusal(from: http, to: http, tls: .default) == nil)
        #expect(TLSRouting.redirectRefusal(from: http, to: https, tls: .default) == nil)
        #expect(TLSRouting.redirectRefusal(from: https, to: https, tls: .default) == nil)
    }
}
