import ConnectionKit
import Foundation
import Testing

@Suite("Credential stores")
struct CredentialStoreTests {
    private func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("CredentialStoreTests-\(UUID().uuidString)")
    }

    private func roundTrip(_ store: any CredentialStore) throws {
        #expect(try store.credential(for: "api") == nil)
        try store.setCredential("first", for: "api")
        try store.setCredential("other", for: "backup")
        #expect(try store.credential(for: "api") == "first")
        try store.setCredential("second", for: "api")
        #expect(try store.credential(for: "api") == "second")
        try store.deleteCredential(for: "api")
        #expect(try store.credential(for: "api") == nil)
        #expect(try store.credential(for: "backup") == "other")
        try store.deleteCredential(for: "never-stored")
    }

    @Test func inMemoryStoreRoundTrips() throws {
        try roundTrip(InMemoryCredentialStore())
        #expect(InMemoryCredentialStore(["a": "b"]).credential(for: "a") == "b")
    }

    @Test func fileStoreRoundTripsAndPersists() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("nested/credentials.json")
        try roundTrip(FileCredentialStore(fileURL: file))
        // A second instance (a relaunched app) reads what the first wrote.
        #expect(try FileCredentialStore(fileURL: file).credential(for: "backup") == "other")
    }

    @Test func fileStoreWritesOwnerOnlyAtomically() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("credentials.json")
        let store = FileCredentialStore(fileURL: file)
        for index in 0..<5 { try store.setCredential("token-\(index)", for: "api") }
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // Only the file itself remains: every temporary file was renamed into place.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["credentials.json"])
        #expect(try store.credential(for: "api") == "token-4")
    }

    @Test func fileStoreConcurrentWritesLoseNothing() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileCredentialStore(fileURL: folder.appendingPathComponent("credentials.json"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { try store.setCredential("value-\(index)", for: "account-\(index)") }
            }
            try await group.waitForAll()
        }
        for index in 0..<20 {
            #expect(try store.credential(for: "account-\(index)") == "value-\(index)")
        }
    }

    @Test func corruptFileGivesATypedError() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("credentials.json")
        try Data("{\"api\": \"trunc".utf8).write(to: file)
        let store = FileCredentialStore(fileURL: file)
        let error = try #require(throws: CredentialStoreError.self) { try store.credential(for: "api") }
        guard case .corruptFile(let url) = error.kind else {
            Issue.record("expected corruptFile, got \(error)")
            return
        }
        #expect(url == file)
        #expect(error.localizedDescription.contains("corrupt"))
        #expect(!error.localizedDescription.contains("trunc"))
        // A write does not silently replace a file it cannot read.
        #expect(throws: CredentialStoreError.self) { try store.setCredential("new", for: "api") }
    }
}
