import Foundation

extension ConnectionHistoryRecord {
    /// The run's last request as a curl command line, secrets shown as `<redacted>` (as in
    /// ``AnyConnectionRequest/cURLDescription``). The body is not kept, so a request that had one
    /// gets a comment line saying how many bytes to supply.
    public var cURLCommand: String {
        var arguments: [String] = []
        var preamble: [String] = []
        switch method.uppercased() {
        case "GET": break
        case "HEAD": arguments.append("--head")
        default: arguments.append("--request \(CURLCommand.quote(method.uppercased()))")
        }
        for field in requestHeaderFields {
            let line = field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)"
            arguments.append("--header \(CURLCommand.quote(line))")
        }
        if requestBodySize > 0 {
            preamble.append("# The body (\(requestBodySize) bytes) is not kept in the history: save it as body.bin.")
            arguments.append("--data-binary @body.bin")
        }
        let url = redactedURL ?? ""
        if url.contains(where: { "[]{}".contains($0) }) { arguments.append("--globoff") }
        arguments.append(CURLCommand.quote(url))
        return (preamble + ["curl " + arguments.joined(separator: " \\\n  ")]).joined(separator: "\n")
    }
}
