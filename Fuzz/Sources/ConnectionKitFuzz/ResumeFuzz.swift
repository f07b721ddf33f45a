import Foundation

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a resumable download reads: a response's `Content-Range`, `ETag`, `Last-Modified` and
/// status (fields 0 to 3), and the resume record left on disk (the rest of the input). A weak
/// `ETag` is never the `If-Range` validator; a resume appends only at the offset the partial file
/// has; no validator with a control character, or longer than the limit, comes back from disk (it
/// would go out in `If-Range`).
enum ResumeFuzz {
    static let url = URL(string: "http://127.0.0.1/file.bin")!
    static let destination = FuzzScratch.folder.appendingPathComponent("file.bin")
    static let partial = PartialFile.beside(destination, resumable: true)

    static func run(_ input: Data) {
        let fields = FuzzInput(input)
        if let range = FileTarget.ContentRange(fields[0]), range.first > range.last {
            fatalError("Content-Range with first > last accepted")
        }
        var headers: [String: String] = [:]
        for (index, name) in ["Content-Range", "ETag", "Last-Modified"].enumerated() {
            if let value = fields[index], !value.isEmpty { headers[name] = value }
        }
        let status = fields[3].flatMap { Int($0) }.map { min(max($0, 100), 599) } ?? 206
        let response = ConnectionResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        let validator = PartialFile.validator(of: response)
        if let etag = response.value(forHTTPHeaderField: "ETag"), !etag.isEmpty {
            // A strong ETag is preferred; a weak one is never used (a Last-Modified may be instead).
            let lastModified = response.value(forHTTPHeaderField: "Last-Modified").flatMap { $0.isEmpty ? nil : $0 }
            let expected = etag.hasPrefix("W/") ? lastModified : etag
            guard validator == expected else { fatalError("the If-Range validator is not the strong ETag") }
        }
        let point = PartialFile.ResumePoint(offset: 1_000, validator: "\"v1\"")
        let target = FileTarget(
            partial: partial, resumable: true, resumePoint: point, expectedSize: nil, expectedDigest: nil)
        if case .append(let offset, _) = target.placement(for: response), offset != point.offset {
            fatalError("a 206 was appended at \(offset), not at the partial file's end")
        }
        readRecord(Data(fields.fields(from: 4).joined(separator: "\n").utf8))
    }

    /// The resume record as the next start reads it.
    private static func readRecord(_ record: Data) {
        guard (try? Data([1]).write(to: partial.temporary)) != nil,
            let validatorFile = partial.validatorFile, (try? record.write(to: validatorFile)) != nil
        else { fatalError("cannot write to \(FuzzScratch.folder.path)") }
        defer { partial.removeAll() }
        guard let point = try? partial.resumePoint() else { return }
        let validator = point.validator
        if validator.utf8.count > PartialFile.maximumValidatorLength
            || validator.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            fatalError("a resume record that ConnectionKit would not write was trusted")
        }
    }
}
