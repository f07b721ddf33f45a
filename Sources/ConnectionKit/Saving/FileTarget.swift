import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How one transfer saves its body: where, whether it resumes, and what the file must match.
/// Read from the request's hooks once per transfer.
struct FileTarget: Sendable {
    let partial: PartialFile
    /// Whether an interrupted transfer keeps its partial file (``AnyConnectionRequest/resumesInterruptedDownloads``).
    let resumable: Bool
    /// Where the bytes on disk end, when this transfer asked for the rest with `Range`.
    let resumePoint: PartialFile.ResumePoint?
    let expectedSize: Int64?
    let expectedDigest: [UInt8]?

    /// What to do with a response's body.
    enum Placement: Equatable {
        /// Write it from the start (a 2xx; for a resumed transfer, the server ignored `Range`
        /// or the file changed).
        case fresh
        /// Append it to the partial file, which holds `offset` bytes (a matching 206).
        case append(offset: Int64, total: Int64?)
        /// The partial file cannot be resumed (416, or a 206 for another range): remove it and
        /// send the request again without `Range`.
        case restart
        /// Not a body to save (an error status): it stays in memory for `validate`.
        case notSaved
    }

    func placement(for response: ConnectionResponse) -> Placement {
        let status = response.statusCode
        if let resumePoint {
            if status == 416 { return .restart }
            if status == 206 {
                guard let range = ContentRange(response.value(forHTTPHeaderField: "Content-Range")),
                    range.first == resumePoint.offset
                else { return .restart }
                return .append(offset: resumePoint.offset, total: range.total)
            }
        }
        return (200..<300).contains(status) ? .fresh : .notSaved
    }

    /// `Content-Range: bytes first-last/total` (total may be `*`).
    struct ContentRange: Equatable {
        let first: Int64
        let last: Int64
        let total: Int64?

        init?(_ header: String?) {
            guard let header else { return nil }
            let trimmed = header.trimmingCharacters(in: .whitespaces)
            guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
            let spec = trimmed.dropFirst("bytes ".count)
            let parts = spec.split(separator: "/", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let bounds = parts[0].split(separator: "-", maxSplits: 1)
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else {
                return nil
            }
            self.first = first
            self.last = last
            self.total = Int64(parts[1])
        }
    }
}
