import Foundation
import Testing

/// The guides link to each other and to the sample; a renamed or missing file breaks a reader's path
/// through them. Checks every relative link of README.md and docs/*.md.
@Suite(.timeLimit(.minutes(2))) struct DocLinksTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var documents: [URL] {
        let docs = root.appendingPathComponent("docs")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? []
        return [root.appendingPathComponent("README.md")]
            + names.filter { $0.hasSuffix(".md") }.sorted().map { docs.appendingPathComponent($0) }
    }

    /// The targets of `[text](target)` links that are not web addresses or in-page anchors.
    static func relativeLinks(in markdown: String) -> [String] {
        var links: [String] = []
        var rest = markdown[...]
        while let open = rest.range(of: "](") {
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.firstIndex(of: ")") else { break }
            let target = String(afterOpen[..<close])
            rest = afterOpen[close...]
            if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("#") { continue }
            links.append(String(target.split(separator: "#", maxSplits: 1)[0]))
        }
        return links
    }

    @Test func everyRelativeLinkPointsToAFile() throws {
        #expect(Self.documents.count > 1)
        for document in Self.documents {
            let text = try String(contentsOf: document, encoding: .utf8)
            for link in Self.relativeLinks(in: text) {
                let target = document.deletingLastPathComponent().appendingPathComponent(link).standardized
                #expect(
                    FileManager.default.fileExists(atPath: target.path),
                    "\(document.lastPathComponent) links to \(link), which does not exist")
            }
        }
    }
}
