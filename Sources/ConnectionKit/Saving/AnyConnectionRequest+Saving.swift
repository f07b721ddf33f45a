import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension AnyConnectionRequest {
    // MARK: - Saving to file

    /// Fails before anything is sent when ``fileDestination`` cannot be written: not a file URL, a
    /// missing folder (or a path through a file), a destination that is a folder, a folder where no
    /// file can be created; and when ``expectedSHA256`` is not a digest.
    func checkFileDestination() throws {
        guard let destination = fileDestination else { return }
        func failure(_ message: String) -> ConnectionError {
            ConnectionError(.fileSystem(underlying: POSIXFileError(message: message)))
        }
        guard destination.isFileURL else {
            throw failure("the destination \(destination.absoluteString) is not a file URL")
        }
        let folder = destination.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) else {
            throw failure("the folder \(folder.path) does not exist")
        }
        guard isFolder.boolValue else {
            throw failure("\(folder.path) is a file, not a folder")
        }
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isFolder), isFolder.boolValue {
            throw failure("the destination \(destination.path) is a folder")
        }
        // Creating a file is the only reliable test of a folder: permission bits say nothing to root,
        // and a read-only or virtual file system refuses whatever they say.
        let probe = folder.appendingPathComponent(
            ".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).ckprobe")
        let descriptor = open(probe.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ConnectionError(
                .fileSystem(underlying: POSIXFileError.current(operation: "create a file in", path: folder.path)))
        }
        close(descriptor)
        unlink(probe.path)
        if let digest = expectedSHA256, SHA256.digest(fromHex: digest) == nil {
            throw ConnectionError(
                .invalidRequest(reason: "expectedSHA256 must be 64 hexadecimal digits, not '\(digest)'."))
        }
    }

    /// Reads the saving hooks for one transfer. When an earlier transfer left a resumable partial
    /// file, asks `request` for the rest of it (`Range` and `If-Range`). Throws
    /// `ConnectionError.fileSystem` when the partial file's names hold files ConnectionKit did not create.
    func makeFileTarget(resuming request: inout URLRequest) throws -> FileTarget? {
        guard let destination = fileDestination else { return nil }
        let resumable = resumesInterruptedDownloads
        let partial = PartialFile.beside(destination, resumable: resumable)
        let resumePoint = resumable ? try partial.resumePoint() : nil
        if let resumePoint {
            request.setValue("bytes=\(resumePoint.offset)-", forHTTPHeaderField: "Range")
            request.setValue(resumePoint.validator, forHTTPHeaderField: "If-Range")
        }
        return FileTarget(
            partial: partial, resumable: resumable, resumePoint: resumePoint, expectedSize: expectedFileSize,
            expectedDigest: expectedSHA256.flatMap(SHA256.digest(fromHex:)))
    }

    /// The partial file cannot be resumed (416, or a 206 for another range): removes it and sends
    /// the request again, whole, as the same attempt.
    func restartWithoutRange(_ transfer: TransferNumber, fileTarget: FileTarget) {
        var sent: URLRequest?
        let claimed = claimTransfer(transfer) { sent = $0.sentRequest }
        guard let claimed else { return }
        claimed.transfer?.abandon()
        guard var retry = sent else {
            finish(run: transfer.run, outcome: .failure(ConnectionError(.transport(URLError(.badServerResponse)))))
            return
        }
        fileTarget.partial.removeAll()
        retry.setValue(nil, forHTTPHeaderField: "Range")
        retry.setValue(nil, forHTTPHeaderField: "If-Range")
        let request = retry
        // Not on the transport's delegate queue, which delivered this response.
        process(run: transfer.run, on: runClient.processingQueue) {
            self.beginTransfer(run: transfer.run, request: request)
        }
    }
}
