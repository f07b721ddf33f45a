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
        let lowered = name.lowercased()
        return alwaysSecretHeaders.contains(lowered) || secretHeaderFields.contains { $0.lowercased() == lowered }
    }

    /// Headers sorted by name, secret values replaced.
    static func redactedHeaders(_ headers: [String: String], secretHeaderFields: Set<String>) -> [(String, String)] {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
            (name, isSecretHeader(name, secretHeaderFields: secretHeaderFields) ? placeholder : value)
        }
    }

    /// The URL as text with a password in it and the values of secret query items replaced.
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
        let items = rest.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let name = (rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName)
                .lowercased()
            guard lowered.contains(name) else { return String(item) }
            return rawName + "=" + placeholder
        }
        return String(text[..<question]) + "?" + items.joined(separator: "&") + fragment
    }

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
        if let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            let names = Set(secretQueryItems.map { $0.lowercased() })
            for item in components.queryItems ?? [] where names.contains(item.name.lowercased()) {
                values.append(item.value ?? "")
            }
            for item in components.percentEncodedQueryItems ?? [] where names.contains(item.name.lowercased()) {
                values.append(item.value ?? "")
            }
            if let password = url.password { values.append(password) }
        }
        let trimmed = values.map { $0.trimmingCharacters(in: .whitespaces) }
        let all = trimmed + trimmed.map { $0.replacingOccurrences(of: "/", with: "\\/") }
        return Array(Set(all.filter { $0.count >= minimumScrubbedLength }))
    }
}
