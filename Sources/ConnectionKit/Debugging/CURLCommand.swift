import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Renders a `URLRequest` as a curl command line (see ``AnyConnectionRequest/cURLDescription``).
enum CURLCommand {
    /// `proxy` is the class's ``AnyConnectionRequest/proxy``: the command goes through it too, for every
    /// host as the class's requests do (`--noproxy ''` keeps `no_proxy` from exempting any), its
    /// credentials redacted.
    static func render(
        _ request: URLRequest, secretHeaderFields: Set<String>, secretQueryItems: Set<String>, proxy: URL? = nil
    ) -> String {
        var arguments: [String] = []
        if let proxy {
            arguments.append("--proxy \(quote(ConnectionTransport.proxyAddress(proxy)))")
            if proxy.user != nil || proxy.password != nil {
                arguments.append("--proxy-user \(quote(Redaction.placeholder))")
            }
            arguments.append("--noproxy ''")
        }
        var preamble: [String] = []
        let method = (request.httpMethod ?? "GET").uppercased()
        let body = request.httpBody ?? Data()
        switch method {
        case "GET" where body.isEmpty: break
        case "HEAD": arguments.append("--head")
        default: arguments.append("--request \(quote(method))")
        }
        let headers = Redaction.redactedHeaders(
            request.allHTTPHeaderFields ?? [:], secretHeaderFields: secretHeaderFields)
        for (name, value) in headers {
            // `Name;` is curl's way to send a header with an empty value (`Name:` would remove it).
            arguments.append("--header \(quote(value.isEmpty ? "\(name);" : "\(name): \(value)"))")
        }
        if !body.isEmpty {
            if let text = String(data: body, encoding: .utf8), !text.contains("\0") {
                // `--data-raw`, not `--data-binary`: curl reads a value starting with `@` as the name of a
                // file to upload, so a body such as `@/home/me/.ssh/id_rsa` would send that file.
                arguments.append("--data-raw \(quote(text))")
            } else {
                preamble.append("# The body is \(body.count) bytes of binary data: save it as body.bin first.")
                arguments.append("--data-binary @body.bin")
            }
        }
        let url = Redaction.redactedURL(request.url, secretQueryItems: secretQueryItems) ?? ""
        // curl reads [] and {} in a URL as glob patterns.
        if url.contains(where: { "[]{}".contains($0) }) { arguments.append("--globoff") }
        arguments.append(quote(url))
        let command = "curl " + arguments.joined(separator: " \\\n  ")
        return (preamble + [command]).joined(separator: "\n")
    }

    /// Single-quotes `text` for a POSIX shell: nothing inside is special except `'` itself. Scalar by
    /// scalar, as the shell reads bytes: a `'` followed by a combining mark is one `Character` to Swift, which
    /// `String` replacement would skip, leaving the quote open and the rest of the text to the shell.
    static func quote(_ text: String) -> String {
        var quoted = String.UnicodeScalarView()
        quoted.append("'")
        for scalar in text.unicodeScalars {
            if scalar == "'" {
                quoted.append(contentsOf: "'\\''".unicodeScalars)
            } else {
                quoted.append(scalar)
            }
        }
        quoted.append("'")
        return String(quoted)
    }
}
