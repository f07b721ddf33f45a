import Foundation

/// The public-suffix list (https://publicsuffix.org): the domains under which anyone can register a name
/// (`com`, `co.uk`, `github.io`), where a cookie's `Domain` would reach every site (RFC 6265 §5.3 step 5).
///
/// Read from the system's copy (`/usr/share/publicsuffix/public_suffix_list.dat`, Debian's `publicsuffix`
/// package, kept current by the distribution) when there is one, otherwise from the copy compiled into
/// ConnectionKit (``compiledRules``, made by `scripts/public_suffix.py`).
struct PublicSuffixList: Sendable {
    /// Where Debian and its derivatives install the list.
    static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The list every cookie jar uses, read once.
    static let shared: PublicSuffixList = {
        if let text = try? String(contentsOfFile: systemPath, encoding: .utf8) {
            let list = PublicSuffixList(text)
            if !list.rules.isEmpty { return list }
        }
        return PublicSuffixList(compiledRules)
    }()

    /// Plain rules (`co.uk`), wildcards without their `*.` (`ck` for `*.ck`), exceptions without their `!`.
    private(set) var rules: Set<String> = []
    private(set) var wildcards: Set<String> = []
    private(set) var exceptions: Set<String> = []

    /// Reads the list's format: one rule at the start of each line, `//` comments, blank lines.
    init(_ text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            let lowered = rule.lowercased()
            if lowered.hasPrefix("!") {
                exceptions.insert(String(lowered.dropFirst()))
            } else if lowered.hasPrefix("*.") {
                wildcards.insert(String(lowered.dropFirst(2)))
            } else {
                rules.insert(lowered)
            }
        }
    }

    /// Whether `domain` (lower-cased, no leading or trailing dot) is a public suffix. A single label is
    /// one by the list's implicit `*` rule (`com`, `localhost`): a cookie for it would reach every host under it.
    func isPublicSuffix(_ domain: String) -> Bool {
        let domain = domain.hasSuffix(".") ? String(domain.dropLast()) : domain
        guard !domain.isEmpty else { return true }
        if exceptions.contains(domain) { return false }
        if rules.contains(domain) { return true }
        guard let dot = domain.firstIndex(of: ".") else { return true }
        return wildcards.contains(String(domain[domain.index(after: dot)...]))
    }
}
