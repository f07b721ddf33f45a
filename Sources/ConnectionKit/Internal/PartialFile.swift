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
    /// Leftovers that cannot be resumed (no validator, an empty file) are removed.
    func resumePoint() -> ResumePoint? {
        guard let validatorFile else { return nil }
        var info = stat()
        let hasBytes = stat(temporary.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_size > 0
        let validator = (try? String(contentsOf: validatorFile, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard hasBytes, let validator, !validator.isEmpty else {
            removeAll()
            return nil
        }
        return ResumePoint(offset: Int64(info.st_size), validator: validator)
    }

    /// Records the validator the partial bytes belong to, or forgets it (`nil`).
    func recordValidator(_ validator: String?) throws {
        guard let validatorFile else { return }
        guard let validator else {
            unlink(validatorFile.path)
            return
        }
        do {
            try Data(validator.utf8).write(to: validatorFile, options: .atomic)
        } catch {
            throw ConnectionError(.fileSystem(underlying: error))
        }
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
    static func validator(of response: HTTPURLResponse) -> String? {
        if let etag = response.value(forHTTPHeaderField: "ETag"), !etag.isEmpty, !etag.hasPrefix("W/") {
            return etag
        }
        if let lastModified = response.value(forHTTPHeaderField: "Last-Modified"), !lastModified.isEmpty {
            return lastModified
        }
        return nil
    }
}
