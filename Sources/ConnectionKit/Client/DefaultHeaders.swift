import Foundation

/// Builds the header fields an app superclass usually sends with every request (see
/// ``AnyConnectionRequest/defaultHeaderFields``).
public enum DefaultHeaders {
    /// ConnectionKit's version, as sent in `User-Agent` and written as a HAR export's `creator`: `2.0`, the
    /// version the guides describe (a package depending on it names `from: "2.0.0"`).
    public static let connectionKitVersion = "2.0"

    /// `Accept`, `Accept-Language` and `User-Agent`:
    /// - `Accept`: `accept` (default `application/json`);
    /// - `Accept-Language`: ``acceptLanguage(_:)`` of ``preferredLanguages``, e.g. `en-GB, en;q=0.9, fr;q=0.8`,
    ///   at most 6; `en` when none is known (on Linux: when the locale is `C` or `POSIX`, as in most containers);
    /// - `User-Agent`: `<appName>/<appVersion> ConnectionKit/<version>`, e.g. `Seed/2.1 ConnectionKit/2.0`.
    public static func standard(appName: String, appVersion: String, accept: String = "application/json")
        -> [String: String]
    {
        [
            "Accept": accept,
            "Accept-Language": acceptLanguage(),
            "User-Agent": userAgent(appName: appName, appVersion: appVersion),
        ]
    }

    /// `<appName>/<appVersion> ConnectionKit/<version>`.
    public static func userAgent(appName: String, appVersion: String) -> String {
        "\(appName)/\(appVersion) ConnectionKit/\(connectionKitVersion)"
    }

    /// `languages` as an `Accept-Language` value, weighted in order: `en-GB, en;q=0.9, fr;q=0.8`. At most the
    /// first 6 are sent; `en` when `languages` is empty. Weights always use a `.`, whatever the locale.
    public static func acceptLanguage(_ languages: [String] = preferredLanguages) -> String {
        let chosen = languages.prefix(6)
        guard !chosen.isEmpty else { return "en" }
        return chosen.enumerated().map { index, language in
            index == 0 ? language : "\(language);q=0.\(10 - index)"
        }.joined(separator: ", ")
    }

    /// The user's preferred languages as BCP 47 tags, most preferred first, or `[]` when none is known.
    ///
    /// On Apple platforms: `Locale.preferredLanguages` (the user's language settings). On Linux, where
    /// Foundation's `Locale.preferredLanguages` ignores the environment and always answers `en-001`, the
    /// environment is read the way `gettext` reads it: the locale is the first set of `LC_ALL`, `LC_MESSAGES`
    /// and `LANG`; a `C` or `POSIX` locale (or none) means no preference; otherwise the colon-separated
    /// `LANGUAGE` list, when set, comes first, then the locale's language (`fr_FR.UTF-8` is `fr-FR`).
    public static var preferredLanguages: [String] {
        #if canImport(Darwin)
            Locale.preferredLanguages
        #else
            posixPreferredLanguages(ProcessInfo.processInfo.environment)
        #endif
    }

    /// The languages a POSIX environment asks for (see ``preferredLanguages``).
    static func posixPreferredLanguages(_ environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, let language = languageTag(posixLocale: locale) else { return [] }
        let listed = (environment["LANGUAGE"] ?? "").split(separator: ":").compactMap {
            languageTag(posixLocale: String($0))
        }
        var languages: [String] = []
        for tag in listed + [language] where !languages.contains(tag) {
            languages.append(tag)
        }
        return languages
    }

    /// `fr_FR.UTF-8@euro` → `fr-FR`, `de` → `de`; `nil` for `C`, `POSIX` (with or without a codeset) and
    /// anything that is not a language.
    static func languageTag(posixLocale: String) -> String? {
        let name = posixLocale.prefix { $0 != "." && $0 != "@" }
        guard name != "C", name != "POSIX" else { return nil }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count <= 2, let language = parts.first, (2...3).contains(language.count),
            language.allSatisfy({ $0.isASCII && $0.isLetter })
        else { return nil }
        guard parts.count == 2 else { return language.lowercased() }
        let region = parts[1]
        guard (2...3).contains(region.count), region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        return "\(language.lowercased())-\(region.uppercased())"
    }
}
