import Foundation

/// One `bytes=` range from a `Range` header. The initializer returns `nil` for anything else (several ranges,
/// another unit, bad numbers, last before first), which `TestResponse.ranged` treats as "no Range header".
enum ByteRangeRequest {
    /// `bytes=N-`: from byte N to the end.
    case from(Int)
    /// `bytes=N-M`: bytes N through M inclusive (M may lie past the end).
    case bounded(Int, Int)
    /// `bytes=-S`: the last S bytes.
    case suffix(Int)

    /// Parses a `Range` header value.
    init?(_ header: String) {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = trimmed.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let firstText = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let lastText = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        switch (Int(firstText), Int(lastText)) {
        case (nil, let count?) where firstText.isEmpty && count >= 0:
            self = .suffix(count)
        case (let first?, nil) where lastText.isEmpty && first >= 0:
            self = .from(first)
        case (let first?, let last?) where first >= 0 && last >= first:
            self = .bounded(first, last)
        default:
            return nil
        }
    }
}
