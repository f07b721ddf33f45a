import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ConnectionRegistry {
    /// The history (oldest first), followed by the live requests marked incomplete, as a HAR 1.2
    /// document that browsers' network panels and HAR tools open. Secrets are redacted, as in
    /// ``history(of:outcome:since:until:)``; no body is included. Each entry also carries
    /// `_typeName`, `_identifier`, `_attempts` and `_incomplete` (custom fields start with `_`).
    public func harData() throws -> Data {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let dateText = { (date: Date) in formatter.string(from: date) }
        let entries =
            history().map { HARDocument.Entry($0, dateText: dateText) }
            + snapshot().map { HARDocument.Entry(live: $0, dateText: dateText) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(HARDocument(log: .init(entries: entries)))
        } catch {
            throw ConnectionError(.other(underlying: error), requestTypeName: "ConnectionRegistry")
        }
    }

    /// Writes ``harData()`` to `file`, replacing it atomically: a failed export leaves no partial
    /// file. Throws `ConnectionError` with kind `fileSystem` when the file cannot be written.
    public func exportHAR(to file: URL) throws {
        let data = try harData()
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            throw ConnectionError(.fileSystem(underlying: error), requestTypeName: "ConnectionRegistry")
        }
    }
}
