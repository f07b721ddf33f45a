import Foundation
import Testing

@testable import ConnectionKit

/// The documented defaults of `DefaultHeaders` that depend on the platform or the locale.
@Suite("Default headers by platform and locale", .offThePool, .timeLimit(.minutes(1)))
struct DefaultHeadersTests {
    @Test func acceptLanguageWeighsAtMostSixLanguagesWithADotWhateverTheLocale() {
        let languages = ["de-CH", "de", "fr", "it", "rm", "en", "es"]
        #expect(
            DefaultHeaders.acceptLanguage(languages)
                == "de-CH, de;q=0.9, fr;q=0.8, it;q=0.7, rm;q=0.6, en;q=0.5")
        #expect(DefaultHeaders.acceptLanguage([]) == "en")
    }

    @Test func aCOrPOSIXLocaleMeansNoPreference() {
        for locale in ["C", "C.UTF-8", "C.utf8", "POSIX", ""] {
            #expect(DefaultHeaders.posixPreferredLanguages(["LANG": locale]).isEmpty, "LANG=\(locale)")
        }
        #expect(DefaultHeaders.posixPreferredLanguages([:]).isEmpty)
        // gettext ignores LANGUAGE in the C locale, and so does ConnectionKit.
        #expect(DefaultHeaders.posixPreferredLanguages(["LANG": "C.UTF-8", "LANGUAGE": "fr:de"]).isEmpty)
    }

    @Test func thePOSIXLocaleGivesItsLanguageAndRegion() {
        #expect(DefaultHeaders.posixPreferredLanguages(["LANG": "fr_FR.UTF-8"]) == ["fr-FR"])
        #expect(DefaultHeaders.posixPreferredLanguages(["LANG": "de_DE.UTF-8@euro"]) == ["de-DE"])
        #expect(DefaultHeaders.posixPreferredLanguages(["LANG": "pt"]) == ["pt"])
        #expect(DefaultHeaders.posixPreferredLanguages(["LANG": "es_419.UTF-8"]) == ["es-419"])
        // Not a language: no preference rather than a malformed header.
        #expect(DefaultHeaders.posixPreferredLanguages(["LANG": "nonsense value"]).isEmpty)
    }

    @Test func localeVariablesTakePrecedenceAsInGettext() {
        let environment = ["LANG": "en_US.UTF-8", "LC_MESSAGES": "es_ES.UTF-8", "LC_ALL": "pt_BR.UTF-8"]
        #expect(DefaultHeaders.posixPreferredLanguages(environment) == ["pt-BR"])
        #expect(DefaultHeaders.posixPreferredLanguages(["LANG": "en_US.UTF-8", "LC_MESSAGES": "es_ES"]) == ["es-ES"])
        // An empty variable is as good as unset.
        #expect(DefaultHeaders.posixPreferredLanguages(["LANG": "it_IT.UTF-8", "LC_ALL": ""]) == ["it-IT"])
    }

    @Test func languageListComesFirstThenTheLocaleWithoutRepeats() {
        let environment = ["LANG": "de_DE.UTF-8", "LANGUAGE": "de_DE:fr::en"]
        #expect(DefaultHeaders.posixPreferredLanguages(environment) == ["de-DE", "fr", "en"])
        #expect(
            DefaultHeaders.acceptLanguage(DefaultHeaders.posixPreferredLanguages(environment))
                == "de-DE, fr;q=0.9, en;q=0.8")
    }

    @Test func thisProcessSendsWhatItsPlatformPrefers() {
        #if canImport(Darwin)
            #expect(DefaultHeaders.preferredLanguages == Locale.preferredLanguages)
        #else
            #expect(
                DefaultHeaders.preferredLanguages
                    == DefaultHeaders.posixPreferredLanguages(ProcessInfo.processInfo.environment))
        #endif
        // The header lists those languages in order, weighted 1, 0.9, 0.8... (at most six), spelled out
        // here rather than recomputed by the function under test.
        let header = DefaultHeaders.standard(appName: "A", appVersion: "1")["Accept-Language"] ?? ""
        let expected = DefaultHeaders.preferredLanguages.prefix(6)
        let weights = ["", ";q=0.9", ";q=0.8", ";q=0.7", ";q=0.6", ";q=0.5"]
        let spelled = zip(expected, weights).map { $0 + $1 }.joined(separator: ", ")
        #expect(header == (expected.isEmpty ? "en" : spelled))
    }
}

/// The same defaults in a process started with a given environment (what a container or a service gets).
@Suite("Default headers in a child process", .offThePool, .timeLimit(.minutes(2)))
struct DefaultHeadersProcessTests {
    private func headers(environment: [String: String]) async throws -> [String: String] {
        let child = try ChildProcess(["default-headers"], environment: environment)
        let ending = await child.finish(timeout: 60)
        #expect(ending.status == 0)
        var headers: [String: String] = [:]
        for line in ending.printed.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    @Test func theDocumentedDefaultsHoldInACLocale() async throws {
        let headers = try await headers(environment: ["LANG": "C.UTF-8"])
        #expect(headers["Accept"] == "application/json")
        #expect(headers["User-Agent"] == "App/1 ConnectionKit/\(DefaultHeaders.connectionKitVersion)")
        #if canImport(Darwin)
            #expect(headers["Accept-Language"] == DefaultHeaders.acceptLanguage(Locale.preferredLanguages))
        #else
            // Foundation on Linux would say `en-001` here, whatever the environment.
            #expect(headers["Accept-Language"] == "en")
        #endif
    }

    @Test func aLinuxProcessSendsTheLanguagesOfItsEnvironment() async throws {
        #if canImport(Darwin)
            // Apple platforms take the user's settings, not the environment.
            let french = try await headers(environment: ["LANG": "fr_FR.UTF-8"])["Accept-Language"]
            #expect(french == DefaultHeaders.acceptLanguage(Locale.preferredLanguages))
        #else
            #expect(try await headers(environment: ["LANG": "fr_FR.UTF-8"])["Accept-Language"] == "fr-FR")
            // A German locale (decimal comma) still weighs with a dot.
            let german = try await headers(environment: [
                "LANG": "de_DE.UTF-8", "LANGUAGE": "de:en", "LC_ALL": "de_DE.UTF-8",
            ])
            #expect(german["Accept-Language"] == "de, en;q=0.9, de-DE;q=0.8")
        #endif
    }
}
