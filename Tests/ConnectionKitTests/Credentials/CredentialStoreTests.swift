import ConnectionKit
import Foundation
import Testing

@Suite("Credential stores", .offThePool, .timeLimit(.minutes(3)))
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

    @Test func fileStoreWritesOwnerOnlyAtomically() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("credentials.json")
        let store = FileCredentialStore(fileURL: file)
        try store.setCredential("token-0", for: "api")
        // A second instance (another process, as far as the file goes) reads while the first rewrites the
        // file: a write in place would show it a partial file, which it reports as corrupt.
        let reader = FileCredentialStore(fileURL: file)
        let writes = 200
        let failures = Locked<[String]>([])
        let reads = Locked(0)
        let writing = Locked(true)
        let readerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while writing.withLock({ $0 }) {
                do {
                    let value = try reader.credential(for: "api")
                    if value?.hasPrefix("token-") != true {
                        failures.withLock { $0.append("read \(String(describing: value))") }
                    }
                    reads.withLock { $0 += 1 }
                } catch {
                    failures.withLock { $0.append("read: \(error)") }
                }
            }
            readerDone.signal()
        }
        for index in 1...writes { try store.setCredential("token-\(index)", for: "api") }
        writing.withLock { $0 = false }
        #expect(await readerDone.signalled(within: 30))
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        #expect(reads.withLock { $0 } > 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // Only the file itself and its lock file remain: every temporary file was renamed into place.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                == [".credentials.json.lock", "credentials.json"])
        let lockFile = folder.appendingPathComponent(".credentials.json.lock").path
        let lockAttributes = try FileManager.default.attributesOfItem(atPath: lockFile)
        #expect((lockAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(FileManager.default.contents(atPath: lockFile) == Data())
        #expect(try store.credential(for: "api") == "token-\(writes)")
    }

    /// One store shared by 8 threads that all write at once (released together, not started one by one):
    /// every write survives.
    @Test func fileStoreConcurrentWritesLoseNothing() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileCredentialStore(fileURL: folder.appendingPathComponent("credentials.json"))
        let threads = 8
        let perThread = 10
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let failures = Locked<[String]>([])
        let inside = Locked((now: 0, most: 0))
        for thread in 0..<threads {
            ready.enter()
            done.enter()
            Thread.detachNewThread {
                ready.leave()
                _ = go.wait(timeout: .now() + 30)
                for index in 0..<perThread {
                    inside.withLock {
                        $0.now += 1
                        $0.most = max($0.most, $0.now)
                    }
                    do { try store.setCredential("value-\(thread)-\(index)", for: "account-\(thread)-\(index)") } catch
                    {
                        failures.withLock { $0.append("\(error)") }
                    }
                    inside.withLock { $0.now -= 1 }
                }
                done.leave()
            }
        }
        #expect(await ready.left(within: 30))
        for _ in 0..<threads { go.signal() }
        #expect(await done.left(within: 60))
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        #expect(inside.withLock { $0.most } > 1, "the writes never overlapped")
        for thread in 0..<threads {
            for index in 0..<perThread {
                #expect(try store.credential(for: "account-\(thread)-\(index)") == "value-\(thread)-\(index)")
            }
        }
    }

    @Test func twoInstancesOnOneFileWritingConcurrentlyLoseNothing() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("credentials.json")
        let stores = [FileCredentialStore(fileURL: file), FileCredentialStore(fileURL: file)]
        let writes = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<writes {
                let store = stores[index % 2]
                group.addTask { try store.setCredential("value-\(index)", for: "account-\(index)") }
            }
            try await group.waitForAll()
        }
        // A third instance (another launch) reads every write of both.
        let reader = FileCredentialStore(fileURL: file)
        let lost = try (0..<writes).filter { try reader.credential(for: "account-\($0)") != "value-\($0)" }
        #expect(lost.isEmpty, "lost \(lost.count) of \(writes) writes")
    }

    @Test func concurrentDeletesAndWritesOnTwoInstancesKeepEveryOutcome() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("credentials.json")
        let first = FileCredentialStore(fileURL: file)
        let second = FileCredentialStore(fileURL: file)
        for index in 0..<50 { try first.setCredential("old-\(index)", for: "delete-\(index)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { try first.deleteCredential(for: "delete-\(index)") }
                group.addTask { try second.setCredential("new-\(index)", for: "write-\(index)") }
            }
            try await group.waitForAll()
        }
        let stored = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: file))
        #expect(stored == Dictionary(uniqueKeysWithValues: (0..<50).map { ("write-\($0)", "new-\($0)") }))
    }

    @Test func deletingFromAStoreThatWasNeverWrittenCreatesNothing() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileCredentialStore(fileURL: folder.appendingPathComponent("credentials.json")).deleteCredential(for: "api")
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func aLockFileThatIsASymbolicLinkIsNotFollowed() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let elsewhere = folder.appendingPathComponent("elsewhere")
        let lockFile = folder.appendingPathComponent(".credentials.json.lock")
        try FileManager.default.createSymbolicLink(at: lockFile, withDestinationURL: elsewhere)
        let store = FileCredentialStore(fileURL: folder.appendingPathComponent("credentials.json"))
        let error = try #require(throws: CredentialStoreError.self) { try store.setCredential("secret", for: "api") }
        guard case .fileSystem(let url, _) = error.kind else {
            Issue.record("expected fileSystem, got \(error)")
            return
        }
        #expect(url.lastPathComponent == ".credentials.json.lock")
        #expect(!error.localizedDescription.contains("secret"))
        // Nothing was created through the link, and nothing was written.
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("credentials.json").path))
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
