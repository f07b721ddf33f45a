import Foundation
import Testing

@testable import ConnectionKit

/// A jar with a file: the credential file's rules (0600, atomic, one lock across processes), session
/// cookies in memory only, expired cookies purged.
@Suite("A cookie jar saved to a file", .offThePool, .timeLimit(.minutes(1)))
struct CookiePersistenceTests {
    static let site = URL(string: "https://www.example.com/")!

    private func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "CookieJar-\(UUID().uuidString)/nested/cookies.json")
    }

    @Test("persistent cookies survive a relaunch; session and expired cookies are not written")
    func roundTrip() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent().deletingLastPathComponent()) }
        let jar = try CookieJar(fileURL: file)
        let now = Date()
        jar.store(setCookie: "remember=yes; Max-Age=3600; Secure; SameSite=Strict", from: Self.site, now: now)
        jar.store(setCookie: "session=in-memory-only", from: Self.site, now: now)
        jar.store(setCookie: "brief=1; Max-Age=1", from: Self.site, now: now.addingTimeInterval(-5))
        try jar.save()
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("in-memory-only"), "a session cookie was written")
        #expect(!text.contains("brief"), "an expired cookie was written")
        let relaunched = try CookieJar(fileURL: file)
        let cookies = relaunched.cookies(for: Self.site)
        #expect(cookies.map(\.name) == ["remember"])
        #expect(cookies.first?.sameSite == .strict)
        #expect(cookies.first?.isSecure == true)
    }

    @Test("the file is owner-only (0600) in a 0700 folder, replaced atomically, beside its lock file")
    func permissions() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent().deletingLastPathComponent()) }
        let jar = try CookieJar(fileURL: file)
        jar.store(setCookie: "a=1; Max-Age=60", from: Self.site)
        try jar.save()
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let entries = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            .sorted()
        #expect(entries == [".cookies.json.lock", "cookies.json"], "no temporary file is left")
    }

    @Test("concurrent saves of several jars on one file always leave one complete file")
    func concurrentSaves() async throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent().deletingLastPathComponent()) }
        let jars = try (0..<4).map { index in
            let jar = try CookieJar(fileURL: file)
            jar.store(setCookie: "writer\(index)=\(index); Max-Age=600", from: Self.site)
            return jar
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for jar in jars {
                group.addTask { for _ in 0..<20 { try jar.save() } }
            }
            try await group.waitForAll()
        }
        let names = try CookieJar(fileURL: file).allCookies.map(\.name)
        #expect(names.count == 1 && names[0].hasPrefix("writer"))
    }

    @Test("a file that is not a cookie file fails with corruptFile and is left untouched")
    func corruptFile() throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent().deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{\"not\": \"cookies\"}".utf8).write(to: file)
        #expect {
            _ = try CookieJar(fileURL: file)
        } throws: { error in
            guard let error = error as? CookieJarError, case .corruptFile = error.kind else { return false }
            return true
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "{\"not\": \"cookies\"}")
        #expect(throws: CookieJarError.self) { try CookieJar().save() }
    }
}
