import Foundation

/// Builds the header fields an app superclass usually sends with every request (see
/// ``AnyConnectionRequest/defaultHeaderFields``).
public enum DefaultHeaders {
    /// ConnectionKit's version, as sent in `User-Agent`.
    public static let connectionKitVersion = "1.0"

    /// `Accept`, `Accept-Language` and `User-Agent`:
    /// - `Accept`: `accept` (default `application/json`);
    /// - `Accept-Language`: the user's preferred languages, weighted (`en-GB, en;q=0.9, fr;q=0.8`), at most 6;
    ///   `en` when none is known;
    /// - `User-Agent`: `<appName>/<appVersion> ConnectionKit/<version>`, e.g. `Seed/2.1 ConnectionKit/1.0`.
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

    /// The user's preferred languages as an `Accept-Language` value, e.g. `en-GB, en;q=0.9`.
    public static func acceptLanguage(_ languages: [String] = Locale.preferredLanguages) -> String {
        let chosen = languages.prefix(6)
        guard !chosen.isEmpty else { return "en" }
        return chosen.enumerated().map { index, language in
            index == 0 ? language : "\(language);q=\(String(format: "%.1f", 1.0 - Double(index) * 0.1))"
        }.joined(separator: ", ")
    }
}
