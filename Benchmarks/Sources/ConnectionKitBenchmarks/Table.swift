import Foundation

/// Prints the rows as one Markdown table (so that it pastes into docs/benchmarks.md as is).
enum Table {
    static func render(_ rows: [Row], rounds: Int) -> String {
        let header = [
            "benchmark", "unit", "raw URLSession", "CK URLSession", "CK/raw", "goal", "met", "CK libcurl",
            "libcurl/raw", "libcurl goal", "met", "curl", "wrk",
        ]
        // Left-aligned columns: names and goals.
        let textColumns: Set<Int> = [0, 1, 5, 9]
        var lines = [header]
        for row in rows {
            lines.append([
                row.name, row.unit, cell(row.rawMedian), cell(row.connectionKitMedian), cell(row.ratio, ratio: true),
                row.goal.text, row.verdict, cell(row.libcurlMedian), cell(row.libcurlRatio, ratio: true),
                row.libcurlGoal.text, row.libcurlVerdict, cell(row.curl), cell(row.wrk),
            ])
        }
        var widths = Array(repeating: 0, count: header.count)
        for line in lines {
            for (index, text) in line.enumerated() { widths[index] = max(widths[index], text.count) }
        }
        func render(_ line: [String]) -> String {
            let cells = line.enumerated().map { index, text in
                let padding = String(repeating: " ", count: widths[index] - text.count)
                return textColumns.contains(index) ? text + padding : padding + text
            }
            return "| " + cells.joined(separator: " | ") + " |"
        }
        let rule =
            "|"
            + widths.enumerated().map { index, width in
                textColumns.contains(index)
                    ? ":" + String(repeating: "-", count: width + 1) : String(repeating: "-", count: width + 1) + ":"
            }.joined(separator: "|") + "|"
        let body = lines.dropFirst().map(render)
        return ([render(header), rule] + body).joined(separator: "\n")
            + "\n\nMedians over alternating rounds (raw, CK URLSession, CK libcurl, raw…): \(rounds) for small "
            + "requests (after one warm-up each), \(min(rounds, 3)) for the large-file, cancel and registry rows. CK/raw "
            + "and libcurl/raw are ConnectionKit's medians (on URLSession, on libcurl) over raw's. curl and wrk: the "
            + "same requests, for reference; a \"/ curl CLI\" row is each column's median over the curl cell above it."
    }

    static func cell(_ value: Double?, ratio: Bool = false) -> String {
        guard let value else { return "-" }
        return ratio ? String(format: "%.2f", value) : format(value)
    }

    /// Three significant digits for small figures, whole numbers for large ones.
    static func format(_ value: Double) -> String {
        switch abs(value) {
        case 1000...: return String(format: "%.0f", value)
        case 100...: return String(format: "%.0f", value)
        case 10...: return String(format: "%.1f", value)
        case 1...: return String(format: "%.2f", value)
        default: return String(format: "%.3f", value)
        }
    }
}
