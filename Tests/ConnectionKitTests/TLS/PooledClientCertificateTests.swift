import ConnectionKit
import Foundation
import Testing

#if canImport(CCurlShim)
    /// libcurl matches a pooled TLS connection by the client certificate, not by its key: a request
    /// whose key cannot be used must not ride on a connection that another request opened with a usable
    /// one (issue 30). Mutual TLS is libcurl's alone (URLSession on Linux has no client certificates).
    @Suite("Mutual TLS on pooled connections (libcurl)", .offThePool, .timeLimit(.minutes(10)), .exclusive)
    struct PooledClientCertificateTests {
        @Test("a request whose key is unusable fails even when a connection with a usable key is pooled")
        func unusableKeyNeverRidesAPooledConnection() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let port = try await fixture.startMutualTLSNginx()
            let url = try #require(URL(string: "https://127.0.0.1:\(port)/"))
            let trust = TLSConfiguration.Trust.only([.file(fixture.file("ca.pem"))])
            let usable = TLSConfiguration.ClientCertificate(
                certificate: .file(fixture.file("client.pem")), key: .file(fixture.file("client.key")))
            // The same certificate with a key that is not its own.
            let mismatched = TLSConfiguration.ClientCertificate(
                certificate: .file(fixture.file("client.pem")), key: .file(fixture.file("rogue-client.key")))

            let first = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: trust, clientCertificate: usable)))
            #expect(first.body?.hasPrefix("ok ") == true, "\(first)")
            let second = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: trust, clientCertificate: mismatched)))
            #expect(second.tlsFailure?.reason == .clientCertificateUnusable, "\(second)")
            // And the usable identity still reuses its own connection.
            let third = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: trust, clientCertificate: usable)))
            #expect(third.body?.hasPrefix("ok ") == true, "\(third)")
        }
    }
#endif
