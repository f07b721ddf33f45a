import Foundation

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
            let name = (rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName).lowercased()
            guard lowered.contains(name) else { return String(item) }
            return rawName + "=" + placeholder
        }
        return String(text[..<question]) + "?" + items.joined(separator: "&") + fragment
    }
}
