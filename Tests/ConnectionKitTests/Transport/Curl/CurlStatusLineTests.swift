import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    /// The libcurl transport reads a status line in place; a server's odd lines must read as before.
    @Suite("The libcurl transport's status line", .offThePool)
    struct CurlStatusLineTests {
        /// What the transport read before it parsed in place: the words split at spaces, the second as an Int.
        static func splitReading(_ line: String) -> (String, Int) {
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            return (parts.first.map(String.init) ?? "HTTP/1.1", parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
        }

        @Test(
            "version and code as the words of the line give them, odd lines included",
            arguments: [
                "HTTP/1.1 200 OK", "HTTP/1.1 404", "HTTP/2 204 ", "HTTP/1.0  301  Moved", "HTTP/1.1", "HTTP/1.1 ",
                "HTTP/1.1 20", "HTTP/1.1 2000 OK", "HTTP/1.1 -200 OK", "HTTP/1.1 +200", "HTTP/1.1 2x0 OK",
                "HTTP/1.1 99999999999999999999 OK", "HTTP/1.1 ２００ OK", "HTTP/1.1 200\tOK",
            ])
        func readsAsTheWordsDo(line: String) {
            let read = Array(line.utf8).withUnsafeBytes { CurlTransfer.statusLine($0) }
            let expected = Self.splitReading(line)
            #expect(read.version == expected.0)
            #expect(read.status == expected.1)
        }
    }
#endif
