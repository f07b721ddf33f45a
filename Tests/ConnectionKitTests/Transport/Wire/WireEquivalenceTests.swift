import ConnectionKitTesting
import Foundation
import Testing

@testable import ConnectionKit

#if canImport(CCurlShim) && canImport(Glibc)
    import FoundationNetworking

    /// One request of the wire-equivalence suite, sent as is through each real transport.
    struct WireCase: Sendable, CustomTestStringConvertible {
        enum Body: Sendable {
            case none
            case memory(Data)
            /// Streamed from a file (the transport's `bodyFile`).
            case file(Data)
        }

        let name: String
        var method: String
        var fields: [(String, String)] = []
        var body: Body = .none
        var path = "/wire/case?q=1&r=%20x"

        var testDescription: String { name }

        static let large = TestBody.generatedBytes(length: 3 * 1024 * 1024 + 17, seed: 9)
        static let json = Data(#"{"name":"Ada","tags":["a","b"]}"#.utf8)

        static let all: [WireCase] = [
            WireCase(name: "GET", method: "GET"),
            WireCase(name: "HEAD", method: "HEAD"),
            WireCase(name: "DELETE without a body", method: "DELETE"),
            WireCase(name: "OPTIONS without a body", method: "OPTIONS"),
            WireCase(name: "PUT without a body", method: "PUT"),
            WireCase(name: "POST without a body", method: "POST"),
            WireCase(name: "POST with an empty body", method: "POST", body: .memory(Data())),
            WireCase(name: "POST, a body, no Content-Type", method: "POST", body: .memory(json)),
            WireCase(name: "PUT, a body, no Content-Type", method: "PUT", body: .memory(json)),
            WireCase(name: "PATCH, a body, no Content-Type", method: "PATCH", body: .memory(json)),
            WireCase(name: "DELETE, a body, no Content-Type", method: "DELETE", body: .memory(json)),
            WireCase(name: "a custom method, a body, no Content-Type", method: "PURGE", body: .memory(json)),
            WireCase(
                name: "POST, a body, a Content-Type", method: "POST", fields: [("Content-Type", "application/json")],
                body: .memory(json)),
            WireCase(
                name: "PATCH, a body, a lower-case content-type", method: "PATCH",
                fields: [("content-type", "text/plain; charset=utf-8")], body: .memory(json)),
            WireCase(
                name: "names and values in unusual case and spacing", method: "GET",
                fields: [
                    ("x-lower-case", "value"), ("X-UPPER-CASE", "VALUE"), ("X-mIxEd-CaSe", "MiXeD VaLuE"),
                    ("X-Inner-Spaces", "a  b   c"), ("X-Padded", "  padded  "), ("X-Tab", "a\tb"), ("X-Empty", ""),
                    ("X-Punctuation", "a=b; c=\"d, e\""),
                ]),
            WireCase(
                name: "Expect: 100-continue asked for", method: "POST",
                fields: [("Expect", "100-continue"), ("Content-Type", "application/octet-stream")],
                body: .memory(Data(repeating: 0x45, count: 200_000))),
            WireCase(
                name: "a large body with a Content-Type", method: "POST",
                fields: [("Content-Type", "application/octet-stream")], body: .memory(large)),
            WireCase(name: "a large body, no Content-Type", method: "PUT", body: .memory(large)),
            WireCase(name: "a body from a file, no Content-Type", method: "POST", body: .file(large)),
            WireCase(
                name: "a body from a file with a Content-Type", method: "PUT",
                fields: [("Content-Type", "application/octet-stream")], body: .file(json)),
            WireCase(
                name: "the fields a transport may add, set by the user", method: "POST",
                fields: [
                    ("User-Agent", "Wire/1.0"), ("Accept-Language", "fr"), ("Connection", "keep-alive"),
                    ("Accept", "application/json"), ("Accept-Encoding", "identity"),
                ],
                body: .memory(json)),
        ]

        /// The request, and the file its body is streamed from (removed by the caller).
        func request(at base: URL) throws -> (URLRequest, URL?) {
            var request = URLRequest(url: URL(string: path, relativeTo: base)!.absoluteURL)
            request.httpMethod = method
            request.timeoutInterval = 60
            for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
            switch body {
            case .none: return (request, nil)
            case .memory(let data):
                request.httpBody = data
                return (request, nil)
            case .file(let data):
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("wire-\(UUID().uuidString)")
                try data.write(to: file)
                return (request, file)
            }
        }
    }

    /// What each real transport puts on the wire for the same request: the same request line, the same
    /// header fields and the same body, but for the fields docs/linux.md lists ("What differs on the
    /// wire"), which only URLSession adds. A new difference, either way, fails the suite.
    @Suite("Wire equivalence of URLSession and libcurl", .offThePool, .timeLimit(.minutes(10)), .exclusive)
    struct WireEquivalenceTests {
        /// The fields FoundationNetworking adds to every request unless the request has them, and that the
        /// libcurl transport does not add (docs/linux.md, "What differs on the wire"): name, and whether a
        /// value is what it must be.
        static let urlSessionOnlyFields: [String: @Sendable (String) -> Bool] = [
            "connection": { $0 == "keep-alive" },
            "user-agent": { $0.contains("(unknown version) curl/") },
            "accept-language": { !$0.isEmpty },
        ]

        @Test("both transports send the same request line, header fields and body", arguments: WireCase.all)
        func sameBytes(wireCase: WireCase) async throws {
            let recorder = try WireRecorder()
            let overURLSession = try await send(wireCase, over: URLSessionTransport.shared, to: recorder)
            let overCurl = try await send(
                wireCase, over: try ConnectionTransport.libcurl().implementation, to: recorder)
            try #require(overURLSession.count == 1 && overCurl.count == 1, "\(overURLSession) / \(overCurl)")
            expectEquivalent(overURLSession[0], overCurl[0], userFields: wireCase.fields.map { $0.0 })
        }

        @Test(
            "a body with no Content-Type goes out with none over libcurl (libcurl's default is form-urlencoded)",
            arguments: ["POST", "PUT", "PATCH", "DELETE"])
        func noContentTypeAdded(method: String) async throws {
            let recorder = try WireRecorder()
            var request = URLRequest(url: recorder.url.appendingPathComponent("json"))
            request.httpMethod = method
            request.httpBody = WireCase.json
            let log = TransferLog()
            startLogged(request, on: try ConnectionTransport.libcurl().implementation, log: log)
            await log.waitForCompletion()
            let record = try #require(recorder.take().first)
            #expect(record.value("Content-Type") == nil, "\(record)")
            #expect(record.body == WireCase.json)
        }

        @Test("a redirected request sends the same hops over both transports", arguments: ["307", "303"])
        func redirects(status: String) async throws {
            let recorder = try WireRecorder()
            var sent: [[WireRecorder.Record]] = []
            for transport in [ConnectionTransport.urlSession, try ConnectionTransport.libcurl()] {
                var request = URLRequest(url: recorder.url.appendingPathComponent("wire/redirect\(status)"))
                request.httpMethod = "POST"
                request.httpBody = WireCase.json
                request.setValue("X", forHTTPHeaderField: "x-Custom-Field")
                let redirected = WireRedirectRequest(request: request, over: transport)
                let endings = Endings(redirected)
                redirected.start()
                let body = try await endings.value()
                #expect(body == Data("ok".utf8))
                sent.append(recorder.take())
            }
            try #require(sent[0].count == 2 && sent[1].count == 2, "\(sent)")
            for hop in 0..<2 {
                expectEquivalent(sent[0][hop], sent[1][hop], userFields: ["x-Custom-Field"])
            }
            #expect(sent[1][1].requestLine.hasPrefix(status == "303" ? "GET /wire/landed " : "POST /wire/landed "))
        }

        /// The lines of `lines` that `other` does not match one for one, sorted: a line `lines` holds twice and
        /// `other` once is in it once.
        static func surplus(of lines: [String], over other: [String]) -> [String] {
            var unmatched = Dictionary(other.map { ($0, 1) }, uniquingKeysWith: +)
            return lines.filter { line in
                guard let count = unmatched[line], count > 0 else { return true }
                unmatched[line] = count - 1
                return false
            }.sorted()
        }

        @Test("a streamed body of known length over libcurl is on the wire what the same bytes from memory are")
        func streamedBodyOfKnownLength() async throws {
            let recorder = try WireRecorder()
            let data = WireCase.large
            let memory = WireCase(
                name: "from memory", method: "PUT", fields: [("Content-Type", "application/octet-stream")],
                body: .memory(data))
            let overURLSession = try await send(memory, over: URLSessionTransport.shared, to: recorder)
            var (request, _) = try memory.request(at: recorder.url)
            request.httpBody = nil
            let pieces = stride(from: 0, to: data.count, by: 100_000).map { data[$0..<min($0 + 100_000, data.count)] }
            let reader = try StreamedBody(length: Int64(data.count)) { pieces.asyncElements }.makeReader()
            let log = TransferLog()
            startLogged(request, on: try ConnectionTransport.libcurl().implementation, streamedBody: reader, log: log)
            await log.waitForCompletion()
            #expect(log.error == nil, "\(String(describing: log.error))")
            let overCurl = recorder.take()
            try #require(overURLSession.count == 1 && overCurl.count == 1, "\(overURLSession) / \(overCurl)")
            expectEquivalent(overURLSession[0], overCurl[0], userFields: memory.fields.map { $0.0 })
        }

        /// Sends `wireCase` over `transport` and returns what the recorder received.
        private func send(_ wireCase: WireCase, over transport: any Transport, to recorder: WireRecorder) async throws
            -> [WireRecorder.Record]
        {
            let (request, file) = try wireCase.request(at: recorder.url)
            defer { if let file { try? FileManager.default.removeItem(at: file) } }
            let log = TransferLog()
            startLogged(request, on: transport, bodyFile: file, log: log)
            await log.waitForCompletion()
            #expect(log.error == nil, "\(transport): \(String(describing: log.error))")
            return recorder.take()
        }

        /// The same request line and body; the same fields but for ``urlSessionOnlyFields`` that the user did
        /// not set, which URLSession alone sends.
        private func expectEquivalent(
            _ urlSession: WireRecorder.Record, _ curl: WireRecorder.Record, userFields: [String],
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(urlSession.requestLine == curl.requestLine, sourceLocation: sourceLocation)
            #expect(
                urlSession.body == curl.body, "body \(urlSession.body.count) / \(curl.body.count)",
                sourceLocation: sourceLocation)
            let set = Set(userFields.map { $0.lowercased() })
            let expectedExtra = Self.urlSessionOnlyFields.filter { !set.contains($0.key) }
            // Multisets, not sets: a field line sent twice is one the other transport did not send.
            let onlyURLSession = Self.surplus(of: urlSession.fields, over: curl.fields)
            let onlyCurl = Self.surplus(of: curl.fields, over: urlSession.fields)
            for (transport, record) in [("URLSession", urlSession), ("libcurl", curl)] {
                let names = record.fields.map { String($0.prefix { $0 != ":" }).lowercased() }
                let repeated = Dictionary(grouping: names) { $0 }.filter { $0.value.count > 1 }.keys.sorted()
                #expect(repeated == [], "fields \(transport) sent more than once", sourceLocation: sourceLocation)
            }
            #expect(onlyCurl == [], "fields only libcurl sent", sourceLocation: sourceLocation)
            let extraNames = onlyURLSession.map { String($0.prefix { $0 != ":" }).lowercased() }
            #expect(
                extraNames.sorted() == expectedExtra.keys.sorted(), "\(onlyURLSession)", sourceLocation: sourceLocation)
            for line in onlyURLSession {
                let name = String(line.prefix { $0 != ":" }).lowercased()
                let value = line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
                #expect(expectedExtra[name]?(value) ?? false, "\(line)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A one-off request over the transport it is given, that follows redirects as every request does.
    private final class WireRedirectRequest: BasicConnectionRequest, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let chosen: ConnectionTransport
        init(request: URLRequest, over transport: ConnectionTransport) {
            chosen = transport
            super.init(request: request)
        }
        override var transport: ConnectionTransport { chosen }
    }
#endif
