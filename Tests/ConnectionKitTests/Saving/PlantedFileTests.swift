import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A resumable download whose `validate` hook (which runs after the last write and before the
/// rename into place) puts a link at the partial file's name, as a racing attacker could.
final class SwappedPartialDownload: DownloadRequest, @unchecked Sendable {
    // Safe: `linkTarget` is a `let`, set in init.
    let linkTarget: URL

    init(from url: URL, to destination: URL, linkTarget: URL) {
        self.linkTarget = linkTarget
        super.init(from: url, to: destination)
    }

    override var resumesInterruptedDownloads: Bool { true }

    override func validate(_ response: ConnectionResponse, data: Data?) throws {
        try super.validate(response, data: data)
        guard let destination = fileDestination else { return }
        let partial = destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).ckpart")
        unlink(partial.path)
        try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: linkTarget)
    }
}

/// Files someone else left in the destination folder where a resumable download keeps its partial
/// file (`.<name>.ckpart`) and its resume record (`.<name>.ckpart-validator`): links, hard links,
/// FIFOs and other users' files. None of them may be written through, read through or trusted.
@Suite("Save to file: planted files and links", .offThePool, .timeLimit(.minutes(1)))
struct PlantedFileTests {
    let queue = DispatchQueue(label: "PlantedFileTests.callbacks")
    /// What the server holds: longer than every planted file, so that a resume would append to it.
    let served = TestBody.generatedBytes(length: 64 * 1_024, seed: 41)
    /// An outside file an attacker points a link at.
    let precious = Data("precious bytes that must never change\n".utf8)

    /// A destination folder and an unrelated outside folder, both removed at the end.
    private struct Folders {
        let scratch: Scratch
        let outside: Scratch

        init() throws {
            scratch = try Scratch()
            outside = try Scratch()
        }

        var destination: URL { scratch.file("file.bin") }
        var partial: URL { scratch.file(".file.bin.ckpart") }
        var validator: URL { scratch.file(".file.bin.ckpart-validator") }

        func remove() {
            scratch.remove()
            outside.remove()
        }
    }

    /// Serves `served` as a static file server does, with `etag`.
    private func server(etag: String) throws -> TestServer {
        let server = try TestServer.started()
        let data = served
        server.route("GET", "/file.bin") { .ranged(data, request: $0, etag: etag) }
        return server
    }

    private func download(_ server: TestServer, to destination: URL) async -> Result<URL, any Error> {
        let download = ResumableDownload(from: server.url("/file.bin"), to: destination)
        download.callbackQueue = queue
        return await outcome(download)
    }

    private func symlink(at link: URL, to target: URL) throws {
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    }

    /// The planted link is refused before anything is sent, and is left for the user to inspect.
    private func expectRefusedBeforeSending(
        _ result: Result<URL, any Error>, server: TestServer, mentioning problem: String
    ) {
        let error = connectionError(result)
        #expect(isFileSystemError(error), "expected a fileSystem error, got \(result)")
        #expect(
            error?.localizedDescription.contains(problem) == true,
            "the error names the problem: \(error?.localizedDescription ?? "none")")
        #expect(server.hits("/file.bin") == 0, "a planted file is refused before anything is sent")
    }

    @Test("a planted .ckpart link with a stale validator: refused, and its target is byte-identical (truncate case)")
    func partialLinkTruncateCase() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        let target = folders.outside.file("target.txt")
        try precious.write(to: target)
        try symlink(at: folders.partial, to: target)
        try Data("\"old\"".utf8).write(to: folders.validator)
        // The server's ETag differs, so a resume would get the whole file and truncate the partial one.
        let server = try server(etag: "\"new\"")
        defer { server.stop() }

        let result = await download(server, to: folders.destination)

        expectRefusedBeforeSending(result, server: server, mentioning: "symbolic link")
        #expect(try Data(contentsOf: target) == precious)
        #expect(!FileManager.default.fileExists(atPath: folders.destination.path))
    }

    @Test("a planted .ckpart link with a matching validator: refused, and its target is byte-identical (append case)")
    func partialLinkAppendCase() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        let target = folders.outside.file("target.txt")
        try precious.write(to: target)
        try symlink(at: folders.partial, to: target)
        try Data("\"v1\"".utf8).write(to: folders.validator)
        // The server's ETag matches, so a resume would append the rest of the file to the link's target.
        let server = try server(etag: "\"v1\"")
        defer { server.stop() }

        let result = await download(server, to: folders.destination)

        expectRefusedBeforeSending(result, server: server, mentioning: "symbolic link")
        #expect(try Data(contentsOf: target) == precious)
    }

    @Test("a planted validator link: refused, its target is neither sent in If-Range nor changed")
    func validatorLink() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        let secret = folders.outside.file("token.txt")
        let secretBytes = Data("secret-token-4711".utf8)
        try secretBytes.write(to: secret)
        try Data(served.prefix(1_000)).write(to: folders.partial)
        try symlink(at: folders.validator, to: secret)
        let server = try server(etag: "\"v1\"")
        defer { server.stop() }

        let result = await download(server, to: folders.destination)

        expectRefusedBeforeSending(result, server: server, mentioning: "symbolic link")
        let sent = server.receivedRequests("/file.bin").compactMap { $0.header("If-Range") }
        #expect(!sent.contains { $0.contains("secret-token") }, "the link's target went out: \(sent)")
        #expect(try Data(contentsOf: secret) == secretBytes)
    }

    @Test("a planted hard link as .ckpart: refused, and the other name's file is byte-identical")
    func partialHardLink() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        // Same file system (both under the temporary folder), as a hard link needs.
        let target = folders.outside.file("target.txt")
        try precious.write(to: target)
        guard link(target.path, folders.partial.path) == 0 else {
            Issue.record("could not create the hard link: \(String(cString: strerror(errno)))")
            return
        }
        try Data("\"v1\"".utf8).write(to: folders.validator)
        let server = try server(etag: "\"v1\"")
        defer { server.stop() }

        let result = await download(server, to: folders.destination)

        expectRefusedBeforeSending(result, server: server, mentioning: "hard link")
        #expect(try Data(contentsOf: target) == precious)
    }

    @Test("a planted FIFO as validator: refused at once, no hang")
    func validatorFIFO() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        try Data(served.prefix(1_000)).write(to: folders.partial)
        guard mkfifo(folders.validator.path, 0o600) == 0 else {
            Issue.record("could not create the FIFO: \(String(cString: strerror(errno)))")
            return
        }
        let server = try server(etag: "\"v1\"")
        defer { server.stop() }

        let result = await download(server, to: folders.destination)

        expectRefusedBeforeSending(result, server: server, mentioning: "not a regular file")
    }

    @Test(
        "a .ckpart and validator owned by another user: refused, the file is byte-identical (runs as root)",
        .enabled(if: geteuid() == 0, "only root can hand a file to another user; CI runs as root"))
    func otherUsersPartialFile() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        try precious.write(to: folders.partial)
        try Data("\"v1\"".utf8).write(to: folders.validator)
        // 65534 is `nobody` on Debian; any user but this one will do.
        for file in [folders.partial, folders.validator] {
            try #require(chown(file.path, 65_534, 65_534) == 0, "chown: \(String(cString: strerror(errno)))")
        }
        let server = try server(etag: "\"v1\"")
        defer { server.stop() }

        let result = await download(server, to: folders.destination)

        expectRefusedBeforeSending(result, server: server, mentioning: "owned by another user")
        #expect(try Data(contentsOf: folders.partial) == precious)
    }

    @Test("a partial file replaced by a link before the rename: the link is not moved into place")
    func partialSwappedBeforeRename() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        let target = folders.outside.file("target.txt")
        try precious.write(to: target)
        let server = try server(etag: "\"v1\"")
        defer { server.stop() }

        let download = SwappedPartialDownload(
            from: server.url("/file.bin"), to: folders.destination, linkTarget: target)
        download.callbackQueue = queue
        let error = connectionError(await outcome(download))

        #expect(isFileSystemError(error), "expected a fileSystem error, got \(String(describing: error))")
        #expect(error?.localizedDescription.contains("was replaced while saving") == true)
        var info = stat()
        #expect(lstat(folders.destination.path, &info) != 0, "nothing may appear at the destination")
        #expect(try Data(contentsOf: target) == precious)
    }

    @Test("a destination that is a link: the link is replaced by the download and its target is byte-identical")
    func destinationLink() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        let target = folders.outside.file("target.txt")
        try precious.write(to: target)
        try symlink(at: folders.destination, to: target)
        let server = try server(etag: "\"v1\"")
        defer { server.stop() }

        let result = await download(server, to: folders.destination)

        #expect(connectionError(result) == nil, "\(result)")
        #expect(try Data(contentsOf: target) == precious)
        let attributes = try FileManager.default.attributesOfItem(atPath: folders.destination.path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular, "the link itself was replaced")
        #expect(try Data(contentsOf: folders.destination) == served)
        #expect(folders.scratch.contents() == ["file.bin"])
    }
}
