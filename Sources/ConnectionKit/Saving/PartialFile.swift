import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a body saved to file lives until it is complete: a temporary file beside the destination
/// (same folder, so the final rename is atomic) and, for a resumable download, a small record of
/// the validator (`ETag` or `Last-Modified`) the partial bytes belong to.
struct PartialFile: Sendable {
    /// Where the file goes when complete.
    let destination: URL
    /// The file being written.
    let temporary: URL
    /// The resume record; `nil` when the download is not resumable.
    let validatorFile: URL?
    /// The file the body was written to, once complete: the rename into place moves only that file.
    var written: OwnFile.Identity?

    /// What an interrupted download left: how many bytes, and the validator they belong to.
    struct ResumePoint: Sendable, Equatable {
        let offset: Int64
        let validator: String
    }

    /// The partial file for `destination`. A resumable one has a fixed name, so that the next start
    /// finds it; otherwise the name is unique, so that two runs never share a file.
    static func beside(_ destination: URL, resumable: Bool) -> PartialFile {
        let folder = destination.deletingLastPathComponent()
        let name = destination.lastPathComponent
        if resumable {
            return PartialFile(
                destination: destination,
                temporary: folder.appendingPathComponent(".\(name).ckpart"),
                validatorFile: folder.appendingPathComponent(".\(name).ckpart-validator"))
        }
        let unique = UUID().uuidString.prefix(8)
        return PartialFile(
            destination: destination, temporary: folder.appendingPathComponent(".\(name).\(unique).ckpart"),
            validatorFile: nil)
    }

    /// The point to resume from, when an earlier run left a non-empty partial file and its validator.
    /// Leftovers that cannot be resumed (no validator, an empty file, a record ConnectionKit would
    /// not have written) are removed. Throws `ConnectionError.fileSystem`, before anything is sent,
    /// when either name holds a file ConnectionKit did not create (see ``OwnFile``).
    func resumePoint() throws -> ResumePoint? {
        guard let validatorFile else { return nil }
        guard let size = try Self.size(of: temporary.path, role: "partial file") else {
            removeValidator()
            return nil
        }
        let validator = try Self.readValidator(at: validatorFile.path)
        guard size > 0, let validator else {
            removeAll()
            return nil
        }
        return ResumePoint(offset: size, validator: validator)
    }

    /// The longest validator read back: far longer than any real `ETag` or HTTP date.
    static let maximumValidatorLength = 4_096

    /// Records the validator the partial bytes belong to, or forgets it (`nil`). Written to a new
    /// file that is renamed over the record: a rename replaces a link planted at the record's name
    /// instead of writing through it.
    func recordValidator(_ validator: String?) throws {
        guard let validatorFile else { return }
        guard let validator else {
            unlink(validatorFile.path)
            return
        }
        let staging = validatorFile.path + ".\(UUID().uuidString.prefix(8))"
        let descriptor = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ConnectionError(.fileSystem(underlying: POSIXFileError.current(operation: "create", path: staging)))
        }
        let written = Data(validator.utf8).withUnsafeBytes { POSIXFile.writeAll($0, to: descriptor) }
        let failure = written ? nil : POSIXFileError.current(operation: "write", path: staging)
        if close(descriptor) != 0 || failure != nil || rename(staging, validatorFile.path) != 0 {
            let error =
                failure ?? POSIXFileError.current(operation: "record the validator in", path: validatorFile.path)
            unlink(staging)
            throw ConnectionError(.fileSystem(underlying: error))
        }
    }

    /// The size of the partial file at `path`, or `nil` when there is none.
    private static func size(of path: String, role: String) throws -> Int64? {
        guard let descriptor = try OwnFile.openChecked(path, flags: O_RDONLY, role: role, operation: "open") else {
            return nil
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ConnectionError(.fileSystem(underlying: POSIXFileError.current(operation: "inspect", path: path)))
        }
        return Int64(info.st_size)
    }

    /// The validator recorded at `path`; `nil` when there is none or it is not one that ConnectionKit
    /// writes (too long, not UTF-8, control characters), so that no file content of another kind
    /// can end up in an `If-Range` header.
    private static func readValidator(at path: String) throws -> String? {
        let role = "resume record"
        guard let descriptor = try OwnFile.openChecked(path, flags: O_RDONLY, role: role, operation: "open") else {
            return nil
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: maximumValidatorLength + 1)
        var count = 0
        while count < bytes.count {
            let result = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return read(descriptor, base + count, buffer.count - count)
            }
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { break }
            count += result
        }
        guard count <= maximumValidatorLength, let text = String(bytes: bytes[..<count], encoding: .utf8) else {
            return nil
        }
        let validator = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !validator.isEmpty,
            !validator.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return validator
    }

    /// Removes the resume record (after a successful rename).
    func removeValidator() {
        if let validatorFile { unlink(validatorFile.path) }
    }

    /// Removes the partial file and its resume record.
    func removeAll() {
        unlink(temporary.path)
        removeValidator()
    }

    /// The validator to resume `response`'s body with: a strong `ETag`, else `Last-Modified`
    /// (`If-Range` must not carry a weak `ETag`, RFC 9110 §13.1.5); `nil` when there is neither.
    static func validator(of response: ConnectionResponse) -> String? {
        if let etag = response.value(forHTTPHeaderField: "ETag"), !etag.isEmpty, !etag.hasPrefix("W/") {
            return etag
        }
        if let lastModified = response.value(forHTTPHeaderField: "Last-Modified"), !lastModified.isEmpty {
            return lastModified
        }
        return nil
    }
}
