import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(CCurlShim)
    import CCurlShim

    /// TLS over the libcurl transport against real servers on loopback (nginx and `openssl s_server`)
    /// with certificates made for each test by `openssl`.
    @Suite("TLS on the libcurl transport", .offThePool, .timeLimit(.minutes(10)), .exclusive)
    struct CurlTLSTests {
        @Test("a server certificate is trusted through the class's CA (a file, or bytes beside the system store)")
        func trustedThroughTheClassCA() async throws {
            _ = try ConnectionTransport.libcurl()
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let url = try #require(URL(string: "https://127.0.0.1:\(ports.good)/"))

            let fromFile = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))]))))
            #expect(fromFile.body?.hasPrefix("ok HTTP/") == true, "\(fromFile)")

            let caBytes = try Data(contentsOf: fixture.file("ca.pem"))
            let plus = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: .systemPlus([.bytes(caBytes)]))))
            #expect(plus.body?.hasPrefix("ok HTTP/") == true, "\(plus)")
        }

        @Test("over HTTPS, a HAR entry counts the TLS handshake inside connect, and its time is the sum of its phases")
        func harCountsTLSInsideConnect() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let url = try #require(URL(string: "https://127.0.0.1:\(ports.good)/"))
            let probe = TLSProbe(url, tls: TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))])))
            #expect(await TLSProbe.outcome(probe).body?.hasPrefix("ok") == true)

            let document = try JSONSerialization.jsonObject(with: ConnectionRegistry.shared.harData()) as? [String: Any]
            let entries = (document?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
            let entry = try #require(entries.first { $0["_identifier"] as? String == probe.identifier.uuidString })
            let timings = try #require(entry["timings"] as? [String: Double])
            let ssl = try #require(timings["ssl"])
            let connect = try #require(timings["connect"])
            #expect(ssl > 0, "a new TLS connection was measured: \(timings)")
            #expect(connect >= ssl, "HAR 1.2: connect includes ssl: \(timings)")
            // HAR 1.2: `time` is the sum of the phases that apply (-1: does not), `ssl` not counted twice.
            let phases = ["blocked", "dns", "connect", "send", "wait", "receive"].compactMap { timings[$0] }
            let sum = phases.filter { $0 >= 0 }.reduce(0, +)
            let time = try #require(entry["time"] as? Double)
            #expect(abs(time - sum) < 0.001, "time \(time), phases \(timings)")
        }

        @Test("the system store alone rejects the test CA: untrustedCertificate, with a message that says what to do")
        func untrustedBySystemStore() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let url = try #require(URL(string: "https://127.0.0.1:\(ports.good)/"))
            let outcome = await TLSProbe.outcome(TLSProbe(url))
            #expect(outcome.tlsFailure?.reason == .untrustedCertificate, "\(outcome)")
            if case .failure(let error) = outcome {
                #expect(error.localizedDescription.hasPrefix("TLSProbe could not make a secure connection: "))
                #expect(error.localizedDescription.contains("tls.trust"))
            }
            // Another CA in the class's trust does not help either.
            let rogue = TLSConfiguration(trust: .only([.file(fixture.file("rogue-ca.pem"))]))
            let wrongCA = await TLSProbe.outcome(TLSProbe(url, tls: rogue))
            #expect(wrongCA.tlsFailure?.reason == .untrustedCertificate, "\(wrongCA)")
        }

        @Test("an expired certificate is expiredCertificate, a certificate for another name hostnameMismatch")
        func expiredAndWrongHost() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let trust = TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))]))
            let expired = await TLSProbe.outcome(
                TLSProbe(try #require(URL(string: "https://127.0.0.1:\(ports.expired)/")), tls: trust))
            #expect(expired.tlsFailure?.reason == .expiredCertificate, "\(expired)")
            let wrongHost = await TLSProbe.outcome(
                TLSProbe(try #require(URL(string: "https://127.0.0.1:\(ports.wrongHost)/")), tls: trust))
            #expect(wrongHost.tlsFailure?.reason == .hostnameMismatch, "\(wrongHost)")
        }

        @Test("a TLS failure is never retried by RetryPolicy.default, whatever its reason")
        func neverRetried() async throws {
            let request = URLRequest(url: try #require(URL(string: "https://127.0.0.1/")))
            for reason in TLSFailure.Reason.allCases {
                let error = ConnectionError(.tls(TLSFailure(reason, message: "m")))
                #expect(!RetryPolicy.default.allowsRetry(of: error, attempt: 1, request: request), "\(reason)")
            }
            // And end to end: the policy's decision on a real expired certificate.
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let probe = TLSProbe(
                try #require(URL(string: "https://127.0.0.1:\(ports.expired)/")),
                tls: TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))])), retryPolicy: .default)
            let outcome = await TLSProbe.outcome(probe)
            #expect(outcome.tlsFailure?.reason == .expiredCertificate, "\(outcome)")
            #expect(probe.retryDecisions.withLock { $0 } == ["do not retry"])
        }

        @Test(
            "pins: the right pin connects, a wrong one is pinMismatch, a list of old and new keys accepts both servers")
        func pinning() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let good = try #require(URL(string: "https://127.0.0.1:\(ports.good)/"))
            let rotated = try #require(URL(string: "https://127.0.0.1:\(ports.rotated)/"))
            let ca = TLSConfiguration.Trust.only([.file(fixture.file("ca.pem"))])
            let current = try fixture.pin(of: "server.pem")
            let next = try fixture.pin(of: "server2.pem")
            #expect(current != next)

            let right = await TLSProbe.outcome(
                TLSProbe(good, tls: TLSConfiguration(trust: ca, pinnedPublicKeys: [current])))
            #expect(right.body?.hasPrefix("ok") == true, "\(right)")

            let wrong = await TLSProbe.outcome(
                TLSProbe(good, tls: TLSConfiguration(trust: ca, pinnedPublicKeys: [next])))
            #expect(wrong.tlsFailure?.reason == .pinMismatch, "\(wrong)")

            let rotation = TLSConfiguration(trust: ca, pinnedPublicKeys: [current, "sha256//\(next)"])
            for url in [good, rotated] {
                let outcome = await TLSProbe.outcome(TLSProbe(url, tls: rotation))
                #expect(outcome.body?.hasPrefix("ok") == true, "\(url): \(outcome)")
            }
        }

        @Test("a pin that is not a base64 SHA-256 is an invalidRequest before any connection")
        func malformedPin() async throws {
            let port = try LoopbackPort(reusable: false, listening: true)
            let url = try #require(URL(string: "https://127.0.0.1:\(port.port)/"))
            let outcome = await TLSProbe.outcome(TLSProbe(url, tls: TLSConfiguration(pinnedPublicKeys: ["not-a-pin"])))
            guard case .failure(let error) = outcome, let reason = error.reason else {
                Issue.record("expected invalidRequest, got \(outcome)")
                return
            }
            #expect(reason.contains("pinned public key 1"))
            #expect(!port.hasPendingConnection)
        }

        @Test("mutual TLS: the class's certificate and encrypted key (passphrase from a CredentialStore) are accepted")
        func mutualTLSAccepted() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let port = try await fixture.startMutualTLSServer()
            let store = InMemoryCredentialStore()
            store.setCredential(fixture.passphrase, for: "client-key")
            let client = TLSConfiguration.ClientCertificate(
                certificate: .file(fixture.file("client.pem")), key: .file(fixture.file("client-encrypted.key")),
                passphraseStore: store, passphraseAccount: "client-key")
            let tls = TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))]), clientCertificate: client)
            let outcome = await TLSProbe.outcome(
                TLSProbe(try #require(URL(string: "https://127.0.0.1:\(port)/")), tls: tls))
            #expect(outcome.body?.contains("Ciphers") == true, "\(outcome)")

            // The same from bytes in memory.
            let inMemory = TLSConfiguration.ClientCertificate(
                certificate: .bytes(try Data(contentsOf: fixture.file("client.pem"))),
                key: .bytes(try Data(contentsOf: fixture.file("client.key"))))
            let fromBytes = await TLSProbe.outcome(
                TLSProbe(
                    try #require(URL(string: "https://127.0.0.1:\(port)/")),
                    tls: TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))]), clientCertificate: inMemory)))
            #expect(fromBytes.body?.contains("Ciphers") == true, "\(fromBytes)")
        }

        @Test(
            "mutual TLS refused: no certificate, or one from another CA, is clientCertificateRejected; a wrong passphrase clientCertificateUnusable; no message holds the passphrase"
        )
        func mutualTLSRefused() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let port = try await fixture.startMutualTLSServer()
            let url = try #require(URL(string: "https://127.0.0.1:\(port)/"))
            let trust = TLSConfiguration.Trust.only([.file(fixture.file("ca.pem"))])
            var failures: [ConnectionError] = []

            let none = await TLSProbe.outcome(TLSProbe(url, tls: TLSConfiguration(trust: trust)))
            #expect(none.tlsFailure?.reason == .clientCertificateRejected, "\(none)")
            #expect(none.tlsFailure?.message.contains("presents none") == true, "\(none)")

            let rogue = TLSConfiguration.ClientCertificate(
                certificate: .file(fixture.file("rogue-client.pem")), key: .file(fixture.file("rogue-client.key")))
            let other = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: trust, clientCertificate: rogue)))
            #expect(other.tlsFailure?.reason == .clientCertificateRejected, "\(other)")

            // A wrong passphrase: the right one is in the store under another account, the wrong one a prefix of it.
            let store = InMemoryCredentialStore()
            store.setCredential(String(fixture.passphrase.dropLast(4)), for: "wrong")
            let wrongPassphrase = TLSConfiguration.ClientCertificate(
                certificate: .file(fixture.file("client.pem")), key: .file(fixture.file("client-encrypted.key")),
                passphraseStore: store, passphraseAccount: "wrong")
            DebugCapture.install()
            let wrongProbe = TLSProbe(
                url, tls: TLSConfiguration(trust: trust, clientCertificate: wrongPassphrase), debug: true)
            let wrong = await TLSProbe.outcome(wrongProbe)
            #expect(wrong.tlsFailure?.reason == .clientCertificateUnusable, "\(wrong)")
            let debugBlocks = DebugCapture.blocks(for: wrongProbe.identifier)
            #expect(!debugBlocks.isEmpty)
            #expect(debugBlocks.allSatisfy { !$0.contains(String(fixture.passphrase.dropLast(4))) })

            // No passphrase stored: refused before sending.
            let missing = TLSConfiguration.ClientCertificate(
                certificate: .file(fixture.file("client.pem")), key: .file(fixture.file("client-encrypted.key")),
                passphraseStore: InMemoryCredentialStore(), passphraseAccount: "absent")
            let absent = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: trust, clientCertificate: missing)))
            #expect(absent.tlsFailure?.reason == .clientCertificateUnusable, "\(absent)")

            for outcome in [none, other, wrong, absent] {
                if case .failure(let error) = outcome { failures.append(error) }
            }
            #expect(failures.count == 4)
            let secret = String(fixture.passphrase.dropLast(4))
            for error in failures {
                for text in [error.localizedDescription, error.debugDescription, String(describing: error.kind)] {
                    #expect(!text.contains(secret), "a message holds the passphrase: \(text)")
                }
            }
        }

        @Test(
            "a minimum of TLS 1.3 refuses a server offering only TLS 1.2 (handshakeFailed naming the version); 1.2 connects"
        )
        func minimumVersion() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let url = try #require(URL(string: "https://127.0.0.1:\(ports.tls12Only)/"))
            let trust = TLSConfiguration.Trust.only([.file(fixture.file("ca.pem"))])
            let refused = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: trust, minimumVersion: .tls13)))
            #expect(refused.tlsFailure?.reason == .handshakeFailed, "\(refused)")
            #expect(refused.tlsFailure?.message.contains("TLS 1.3") == true, "\(refused)")
            let accepted = await TLSProbe.outcome(TLSProbe(url, tls: TLSConfiguration(trust: trust)))
            #expect(accepted.body?.hasPrefix("ok") == true, "\(accepted)")
        }

        @Test("HTTP/2 over TLS (ALPN h2) when the loaded libcurl has HTTP/2, which Debian's does")
        func http2OverTLS() async throws {
            _ = try ConnectionTransport.libcurl()
            try #require(ccurl_has_http2() != 0, "the loaded libcurl has no HTTP/2 (nghttp2); this test needs it")
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let url = try #require(URL(string: "https://127.0.0.1:\(ports.good)/"))
            let outcome = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))]))))
            #expect(outcome.body == "ok HTTP/2.0", "\(outcome)")
        }

        @Test(
            "an https → http redirect is refused (insecureRedirect, the http server never asked) unless the class allows it"
        )
        func redirectToHTTP() async throws {
            let plain = try TestServer.started()
            defer { plain.stop() }
            plain.route("/plain") { _ in .text("plain") }
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: plain.url("/plain"))
            let url = try #require(URL(string: "https://127.0.0.1:\(ports.good)/to-http"))
            let ca = TLSConfiguration.Trust.only([.file(fixture.file("ca.pem"))])
            let refused = await TLSProbe.outcome(TLSProbe(url, tls: TLSConfiguration(trust: ca)))
            #expect(refused.tlsFailure?.reason == .insecureRedirect, "\(refused)")
            #expect(plain.hits("/plain") == 0)

            let allowed = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: ca, allowsRedirectsToHTTP: true)))
            #expect(allowed.body == "plain", "\(allowed)")
            #expect(plain.hits("/plain") == 1)
        }

        @Test("a pin applies on every redirect hop: a hop to a server with another key is pinMismatch")
        func pinOnEveryHop() async throws {
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            // The good server redirects to the rotated one (another key); only the first key is pinned.
            let first = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let second = try await fixture.startNginx(
                redirectTarget: try #require(URL(string: "https://127.0.0.1:\(first.rotated)/")))
            let url = try #require(URL(string: "https://127.0.0.1:\(second.good)/to-http"))
            let pinned = TLSConfiguration(
                trust: .only([.file(fixture.file("ca.pem"))]), pinnedPublicKeys: [try fixture.pin(of: "server.pem")])
            let outcome = await TLSProbe.outcome(TLSProbe(url, tls: pinned))
            #expect(outcome.tlsFailure?.reason == .pinMismatch, "\(outcome)")
            // Without the pin, the same redirect reaches the second server.
            let unpinned = await TLSProbe.outcome(
                TLSProbe(url, tls: TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))]))))
            #expect(unpinned.body?.hasPrefix("ok") == true, "\(unpinned)")
        }

        @Test("insecureForTestsOnly accepts any certificate, and debug output flags every request sent with it")
        func insecureForTestsOnly() async throws {
            DebugCapture.install()
            let fixture = try await TLSFixture.made()
            defer { fixture.stop() }
            let ports = try await fixture.startNginx(redirectTarget: URL(fileURLWithPath: "/"))
            let url = try #require(URL(string: "https://127.0.0.1:\(ports.wrongHost)/"))
            let probe = TLSProbe(url, tls: .insecureForTestsOnly, debug: true)
            let outcome = await TLSProbe.outcome(probe)
            #expect(outcome.body?.hasPrefix("ok") == true, "\(outcome)")
            let blocks = DebugCapture.blocks(for: probe.identifier).filter { $0.contains("→ TLSProbe") }
            #expect(!blocks.isEmpty)
            #expect(blocks.allSatisfy { $0.contains("TLS NOT VERIFIED") })
            // A verified class's blocks carry no such line. It reaches the server whose certificate
            // names 127.0.0.1 (the wrong-host one would fail it), and its own blocks were captured.
            let verified = TLSProbe(
                try #require(URL(string: "https://127.0.0.1:\(ports.good)/")),
                tls: TLSConfiguration(trust: .only([.file(fixture.file("ca.pem"))])), debug: true)
            let verifiedOutcome = await TLSProbe.outcome(verified)
            #expect(verifiedOutcome.body?.hasPrefix("ok") == true, "\(verifiedOutcome)")
            let verifiedBlocks = DebugCapture.blocks(for: verified.identifier).filter { $0.contains("→ TLSProbe") }
            #expect(!verifiedBlocks.isEmpty)
            #expect(verifiedBlocks.allSatisfy { !$0.contains("TLS NOT VERIFIED") })
        }
    }
#endif
