import Foundation

extension ConnectionRegistry {
    /// A human-readable table of ``snapshot()``: a header line, then one line per live request in
    /// start order (class, state, method, attempt, elapsed seconds, bytes sent and received with
    /// their expected totals, status, redacted URL, identifier). Secrets are redacted. For
    /// printing from anywhere, e.g. `po ConnectionRegistry.shared.debugDump()` in the debugger.
    public func debugDump() -> String {
        Self.table(of: snapshot())
    }

    /// The table ``debugDump()`` prints, for any list of snapshots.
    static func table(of snapshots: [ConnectionSnapshot]) -> String {
        let header = ["#", "class", "state", "method", "try", "elapsed", "sent", "received", "status", "url", "id"]
        var rows = [header]
        for (index, snapshot) in snapshots.enumerated() {
            rows.append([
                "\(index + 1)",
                snapshot.typeName,
                snapshot.state.rawValue,
                snapshot.method,
                "\(snapshot.attempt)",
                String(format: "%.3fs", snapshot.elapsed),
                bytes(snapshot.bytesSent, of: snapshot.bytesExpectedToSend),
                bytes(snapshot.bytesReceived, of: snapshot.bytesExpectedToReceive),
                snapshot.statusCode.map(String.init) ?? "-",
                snapshot.redactedURL ?? "-",
                snapshot.identifier.uuidString,
            ])
        }
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        let lines = rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }
        let title = "ConnectionRegistry: \(snapshots.count) live request\(snapshots.count == 1 ? "" : "s")"
        return ([title] + lines).joined(separator: "\n") + "\n"
    }

    private static func bytes(_ count: Int64, of expected: Int64?) -> String {
        expected.map { "\(count)/\($0)" } ?? "\(count)"
    }
}
