import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Multipart injection: a part header (content type, name, filename) or a custom boundary that would
/// end a line, a boundary RFC 2046 does not allow, and a boundary that occurs inside a part (which
/// would forge an extra part) all fail the request with `invalidRequest` before anything is sent.
@Suite(.offThePool, .timeLimit(.minutes(2))) struct MultipartInjectionTests {
    /// Posts `form` to a fresh server and returns the `invalidRequest` reason, checking nothing was sent.
    private func refused(_ form: MultipartForm, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> String
    {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/upload") { .echo($0) }
        let request = HostileRequest(HostileHooks(url: server.url("/upload"), method: .post, body: .multipart(form)))
        let error = try await failure(of: request, sourceLocation: sourceLocation)
        let reason = invalidRequestReason(error, sourceLocation: sourceLocation)
        #expect(server.hits("/upload") == 0, "nothing sent", sourceLocation: sourceLocation)
        #expect(reason.contains("requestBody"), "names the hook: \(reason)", sourceLocation: sourceLocation)
        return reason
    }

    @Test(arguments: [
        "text/plain\r\nX-Injected: 1", "text/html\nContent-Disposition: form-data; name=\"admin\"", "a\0",
    ])
    func aPartContentTypeWithALineBreakIsRefused(contentType: String) async throws {
        var form = MultipartForm()
        form.addData(name: "file", data: Data("x".utf8), filename: "x.txt", contentType: contentType)
        let reason = try await refused(form)
        #expect(reason.contains("Content-Type"), "\(reason)")
    }

    @Test(arguments: ["title\r\nX-Injected: 1", "title\"\r\n\r\nforged", "title\0"])
    func aPartNameWithALineBreakIsRefused(name: String) async throws {
        var form = MultipartForm()
        form.addField(name: name, value: "x")
        let reason = try await refused(form)
        #expect(reason.contains("name"), "\(reason)")
    }

    @Test(arguments: ["x.txt\r\nContent-Type: text/html", "x.txt\n", "x\0.txt"])
    func aFilenameWithALineBreakIsRefused(filename: String) async throws {
        var form = MultipartForm()
        form.addData(name: "file", data: Data("x".utf8), filename: filename)
        let reason = try await refused(form)
        #expect(reason.contains("filename"), "\(reason)")
    }

    @Test(arguments: [
        "b\r\nX-Injected: 1", "b\nX", "", String(repeating: "b", count: 71), "ends-with-space ", "quote\"d",
        "semi;colon", "at@sign", "bräk",
    ])
    func aBoundaryRFC2046DoesNotAllowIsRefused(boundary: String) async throws {
        var form = MultipartForm(boundary: boundary)
        form.addField(name: "title", value: "x")
        let reason = try await refused(form)
        #expect(reason.contains("boundary"), "\(reason)")
    }

    @Test func aBoundaryInsideAFieldValueWouldForgeAPartAndIsRefused() async throws {
        var form = MultipartForm(boundary: "sep")
        form.addField(
            name: "comment", value: "hi\r\n--sep\r\nContent-Disposition: form-data; name=\"admin\"\r\n\r\ntrue")
        let reason = try await refused(form)
        #expect(reason.contains("boundary"), "\(reason)")
        #expect(reason.contains("comment"), "names the part: \(reason)")
    }

    @Test func aBoundaryInsideAFileIsRefused() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ck-boundary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("head\r\n--sep--\r\ntail".utf8).write(to: file)
        var form = MultipartForm(boundary: "sep")
        form.addFile(name: "upload", fileURL: file)
        let reason = try await refused(form)
        #expect(reason.contains("upload"), "names the part: \(reason)")
    }

    /// A form over 4 MiB is assembled in a file, 64 KiB at a time: a boundary straddling two pieces is found.
    @Test func aBoundaryAcrossTwoPiecesOfABigFileIsRefused() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ck-boundary-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        var bytes = Data(repeating: UInt8(ascii: "a"), count: 5 * 1024 * 1024)
        let marker = Data("--straddling-boundary".utf8)
        bytes.replaceSubrange(65_530..<(65_530 + marker.count), with: marker)
        try bytes.write(to: file)
        var form = MultipartForm(boundary: "straddling-boundary")
        form.addFile(name: "big", fileURL: file)
        let reason = try await refused(form)
        #expect(reason.contains("big"), "names the part: \(reason)")
    }

    @Test func aBoundaryWithSpacesAndPunctuationIsQuotedAndPartsArrive() async throws {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("/upload") { .echo($0) }
        var form = MultipartForm(boundary: "it's (a) boundary+_,-./:=?")
        form.addField(name: "title", value: "x")
        let request = HostileRequest(HostileHooks(url: server.url("/upload"), method: .post, body: .multipart(form)))
        let endings = Endings(request)
        request.start()
        _ = try await endings.value()
        let received = try #require(server.receivedRequests("/upload").first)
        #expect(received.header("Content-Type") == "multipart/form-data; boundary=\"it's (a) boundary+_,-./:=?\"")
        #expect(received.bodyString?.hasPrefix("--it's (a) boundary+_,-./:=?\r\n") == true)
    }
}
