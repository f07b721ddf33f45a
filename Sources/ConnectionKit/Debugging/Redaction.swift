import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hides secrets wherever a request is shown: debug output, cURL strings, snapshots, events.
enum Redaction {
    /// What a secret value is shown as.
    static let placeholder = "<redacted>"
    /// Headers that are always secret, lower-cased.
    static let alwaysSecretHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// Whether the header `name` is secret, given a class's own secret names.
    static func isSecretHeader(_ name: String, secretHeaderFields: Set<String>) -> Bool {
        isSecret(lowered: name.lowercased(), secrets: lowercased(secretHeaderFields))
    }

    /// Whether the lower-cased header name `lowered` is secret, given a class's own secret names lower-cased.
    private static func isSecret(lowered: String, secrets: Set<String>) -> Bool {
        alwaysSecretHeaders.contains(lowered) || secrets.contains(lowered)
    }

    private static func lowercased(_ names: Set<String>) -> Set<String> {
        names.isEmpty ? [] : Set(names.map { $0.lowercased() })
    }

    /// Headers sorted by name, secret values replaced.
    static func redactedHeaders(_ headers: [String: String], secretHeaderFields: Set<String>) -> [(String, String)] {
        // Each name lower-cased once (not in every comparison of the sort): this runs at the end of every
        // request while the history is on.
        let secrets = lowercased(secretHeaderFields)
        return headers.map { (lowered: $0.key.lowercased(), name: $0.key, value: $0.value) }
            .sorted { $0.lowered < $1.lowered }
            .map { ($0.name, isSecret(lowered: $0.lowered, secrets: secrets) ? placeholder : $0.value) }
    }

    /// The URL as text with a password in it and the values of secret query items replaced. Query items
    /// are separated by `&` or `;` (as HTML 4 and many servers allow), so both are looked through.
    static func redactedURL(_ url: URL?, secretQueryItems: Set<String>) -> String? {
        guard let url else { return nil }
        var text = url.absoluteString
        if let password = url.password, !password.isEmpty, let range = text.range(of: ":\(password)@") {
            text.replaceSubrange(range, with: ":\(placeholder)@")
        }
        guard !secretQueryItems.isEmpty, let question = text.firstIndex(of: "?") else { return text }
        let lowered = Set(secretQueryItems.map { $0.lowercased() })
        var rest = String(text[text.index(after: question)...])
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = String(rest[..<hash])
        }
        var query = ""
        for (item, separator) in queryItems(of: rest) {
            if let (name, _) = nameAndValue(of: item), lowered.contains(name.lowercased()) {
                query += item.prefix { $0 != "=" } + "=" + placeholder
            } else {
                query += item
            }
            query += separator.map(String.init) ?? ""
        }
        return String(text[..<question]) + "?" + query + fragment
    }

    /// The items of a raw query, each with the separator (`&` or `;`) that follows it, if any.
    private static func queryItems(of query: String) -> [(item: Substring, separator: Character?)] {
        var items: [(Substring, Character?)] = []
        var start = query.startIndex
        for index in query.indices where query[index] == "&" || query[index] == ";" {
            items.append((query[start..<index], query[index]))
            start = query.index(after: index)
        }
        items.append((query[start...], nil))
        return items
    }

    /// A raw query item's name, percent- and `+`-decoded, and its raw value (`nil` without `=`).
    private static func nameAndValue(of item: Substring) -> (name: String, rawValue: Substring?)? {
        let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard let rawName = parts.first else { return nil }
        let name = rawName.replacingOccurrences(of: "+", with: " ")
        return (name.removingPercentEncoding ?? name, parts.count > 1 ? parts[1] : nil)
    }

    // MARK: - Errors

    /// `error` with every URL in its user info (and in the errors nested there) redacted like
    /// ``redactedURL(_:secretQueryItems:)``: the failing URL, its string form, and the URL's text inside
    /// any message. URLSession puts the whole request URL, password and query included, in these keys.
    static func scrubbed(_ error: URLError, secretQueryItems: Set<String>) -> URLError {
        URLError(error.code, userInfo: scrubbed(error.userInfo, secretQueryItems: secretQueryItems, depth: 0))
    }

    /// How deep nested errors are scrubbed; deeper ones are dropped rather than exposed.
    private static let maximumScrubbedDepth = 4

    private static func scrubbed(_ info: [String: Any], secretQueryItems: Set<String>, depth: Int) -> [String: Any] {
        // Each URL found, as written, with what replaces it in text.
        var replacements: [(raw: String, redacted: String)] = []
        for value in info.values {
            let url = (value as? URL) ?? (value as? String).flatMap { URL(string: $0) }
            guard let url, url.scheme != nil, let redacted = redactedURL(url, secretQueryItems: secretQueryItems),
                redacted != url.absoluteString
            else { continue }
            replacements.append((url.absoluteString, redacted))
        }
        var result: [String: Any] = [:]
        for (key, value) in info {
            switch value {
            case let url as URL:
                result[key] = redactedURLValue(url, secretQueryItems: secretQueryItems)
            case let text as String:
                result[key] = replacements.reduce(text) { $0.replacingOccurrences(of: $1.raw, with: $1.redacted) }
            case let nested as any Error:
                guard depth < maximumScrubbedDepth else { continue }
                let nested = nested as NSError
                result[key] = NSError(
                    domain: nested.domain, code: nested.code,
                    userInfo: scrubbed(nested.userInfo, secretQueryItems: secretQueryItems, depth: depth + 1))
            default:
                result[key] = value
            }
        }
        return result
    }

    /// `url` redacted and still a `URL` (the placeholder percent-encoded), or `nil` when that does not parse.
    private static func redactedURLValue(_ url: URL, secretQueryItems: Set<String>) -> URL? {
        guard let redacted = redactedURL(url, secretQueryItems: secretQueryItems) else { return nil }
        guard redacted != url.absoluteString else { return url }
        return URL(string: redacted.replacingOccurrences(of: placeholder, with: "%3Credacted%3E"))
    }

    // MARK: - Body previews

    /// The shortest secret value scrubbed from body previews: shorter ones would blank out
    /// ordinary text.
    static let minimumScrubbedLength = 4

    /// The secret values `request` carries, in every form a body could echo them in: whole header
    /// values, the credential after an `Authorization` scheme, cookie values, query item values
    /// (raw and percent-encoded) and a URL password, each also with `/` escaped as JSON does.
    static func secretValues(
        in request: URLRequest, secretHeaderFields: Set<String>, secretQueryItems: Set<String>
    ) -> [String] {
        var values: [String] = []
        for (name, value) in request.allHTTPHeaderFields ?? [:]
        where isSecretHeader(name, secretHeaderFields: secretHeaderFields) {
            values.append(value)
            if let space = value.firstIndex(of: " ") {
                values.append(String(value[value.index(after: space)...]))
            }
            if name.lowercased() == "cookie" {
                for pair in value.split(separator: ";") {
                    if let equals = pair.firstIndex(of: "=") {
                        values.append(String(pair[pair.index(after: equals)...]))
                    }
                }
            }
        }
        if let url = request.url {
            let names = Set(secretQueryItems.map { $0.lowercased() })
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
            for (item, _) in queryItems(of: query) {
                guard let (name, rawValue) = nameAndValue(of: item), names.contains(name.lowercased()),
                    let rawValue
                else { continue }
                values.append(String(rawValue))
                values.append(rawValue.removingPercentEncoding ?? String(rawValue))
            }
            if let password = url.password { values.append(password) }
        }
        return scrubbable(values)
    }

    /// The values of the cookies a response sets (its `Set-Cookie` fields), in every form a body could echo
    /// them in: a login that also returns its session cookie in its body shows it redacted. Each field line
    /// is read on its own where the transport kept them apart. Where it joined them (URLSession), the
    /// browser's split may glue a line onto its neighbour (a nameless line, a value holding `, x=`), so the
    /// value of every piece between commas is a secret as well: hiding a fragment too many is harmless.
    static func setCookieValues(in head: ResponseHead?) -> [String] {
        guard let head else { return [] }
        var lines = head.values(forName: "set-cookie")
        if !head.linesApart, let joined = head.value(forName: "set-cookie") {
            lines += joined.split(separator: ",").map(String.init)
        }
        return scrubbable(lines.compactMap { SetCookie($0)?.value })
    }

    /// `values` trimmed, each also with `/` escaped as JSON does, without the ones too short to scrub.
    private static func scrubbable(_ values: [String]) -> [String] {
        let trimmed = values.map { $0.trimmingCharacters(in: .whitespaces) }
        let all = trimmed + trimmed.map { $0.replacingOccurrences(of: "/", with: "\\/") }
        return Array(Set(all.filter { $0.count >= minimumScrubbedLength }))
    }

    /// `headers` with every occurrence of `secrets` (longest first) in a value replaced: a server may echo
    /// what it received (a forwarded `Proxy-Authorization`, say) in a response header as well as in a body.
    static func scrubbed(_ headers: [String: String], of secrets: [String]) -> [String: String] {
        guard !secrets.isEmpty else { return headers }
        return headers.mapValues { value in
            secrets.reduce(value) { $0.replacingOccurrences(of: $1, with: placeholder, options: .literal) }
        }
    }

    /// The credentials of a class's `proxy`, in every form a body could echo them in: the user name
    /// and password as written and percent-decoded, and the `Proxy-Authorization: Basic` credential
    /// (base64 of `user:password`) the transport adds on its own. A proxy that does not ask for them
    /// forwards that header to the server, which may echo it.
    static func proxySecretValues(_ proxy: URL?) -> [String] {
        guard let proxy, proxy.user != nil || proxy.password != nil else { return [] }
        let written = (user: proxy.user ?? "", password: proxy.password ?? "")
        let decoded = (
            user: written.user.removingPercentEncoding ?? written.user,
            password: written.password.removingPercentEncoding ?? written.password
        )
        var values = [written.user, written.password, decoded.user, decoded.password]
        for pair in Set(["\(written.user):\(written.password)", "\(decoded.user):\(decoded.password)"]) {
            values.append(Data(pair.utf8).base64EncodedString())
        }
        return scrubbable(values)
    }
}
