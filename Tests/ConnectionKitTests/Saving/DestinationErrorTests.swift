import ConnectionKit
import ConnectionKitTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Save to file: bad destinations", .offThePool, .timeLimit(.minutes(1)))
struct DestinationErrorTests {
    let queue = DispatchQueue(label: "DestinationErrorTests.callbacks")

    /// Downloads to `destination` and returns the error; the server must not have been asked.
    private func failingDownload(to destination: URL) async throws -> ConnectionError? {
        let server = try TestServer.started()
        defer { server.stop() }
        server.route("GET", "/file") { _ in .text("content") }
        let download = DownloadRequest(from: server.url("/file"), to: destination)
        download.callbackQueue = queue
        let error = connectionError(await outcome(download))
        #expect(server.hits("/file") == 0, "a bad destination fails before anything is sent")
        return error
    }

    @Test("a missing destination folder gives a fileSystem error")
    func missingFolder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let error = try await failingDownload(to: scratch.file("no-such-folder/file.bin"))
        #expect(isFileSystemError(error))
        #expect(error?.localizedDescription.contains("does not exist") == true)
        #expect(scratch.contents().isEmpty)
    }

    @Test("a destination that is a folder gives a fileSystem error and the folder is untouched")
    func destinationIsFolder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.file("existing")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let error = try await failingDownload(to: folder)
        #expect(isFileSystemError(error))
        #expect(error?.localizedDescription.contains("is a folder") == true)
        #expect(scratch.contents() == ["existing"])
    }

    @Test("a destination whose parent is a regular file gives a fileSystem error")
    func parentIsFile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let file = scratch.file("plain.txt")
        try Data("x".utf8).write(to: file)
        let error = try await failingDownload(to: file.appendingPathComponent("file.bin"))
        #expect(isFileSystemError(error))
        #expect(scratch.contents() == ["plain.txt"])
    }

    @Test(
        "a folder where no file can be created (/sys refuses even root) gives a fileSystem error",
        .enabled(if: FileManager.default.fileExists(atPath: "/sys/kernel"), "needs Linux sysfs"))
    func unwritableVirtualFolder() async throws {
        let error = try await failingDownload(to: URL(fileURLWithPath: "/sys/ck-\(UUID().uuidString).bin"))
        #expect(isFileSystemError(error))
        #expect(error?.localizedDescription.contains("could not create a file in /sys") == true)
    }

    @Test(
        "a read-only folder gives a fileSystem error",
        .enabled(if: getuid() != 0, "root ignores permission bits; the /sys test covers an unwritable folder as root"))
    func readOnlyFolder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.file("locked")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        let error = try await failingDownload(to: folder.appendingPathComponent("file.bin"))
        #expect(isFileSystemError(error))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true)
    }

    @Test("a destination that is not a file URL gives a fileSystem error")
    func notAFileURL() async throws {
        let error = try await failingDownload(to: try #require(URL(string: "https://example.com/file.bin")))
        #expect(isFileSystemError(error))
    }
}
