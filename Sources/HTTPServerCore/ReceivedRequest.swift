import Foundation

/// A parsed request plus what only the connection loop needs: the HTTP version, for keep-alive decisions.
package struct ReceivedRequest {
    /// The request as parsed.
    package var request: ParsedRequest

    /// The version token from the request line, for example `"HTTP/1.1"`.
    package var version: String

    /// Whether the client allows the connection to stay open after the response: HTTP/1.1 unless it sent
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    package var allowsKeepAlive: Bool {
        let connection = request.header("Connection")?.lowercased() ?? ""
        if connection.contains("close") { return false }
        if version == "HTTP/1.0" { return connection.contains("keep-alive") }
        return true
    }
}
