import ConnectionKit
import Foundation

/// Where the app talks to (the embedded demo server or `--base-url`), and where it keeps the logged-in
/// user's token.
final class AppConfiguration: Sendable {
    static let shared = AppConfiguration()

    /// Where every handler of the app's requests runs: a command-line tool has no main run loop to
    /// rely on.
    static let callbackQueue = DispatchQueue(label: "TagAlong.callbacks")

    /// The credential store account the token is kept under.
    static let tokenAccount = "tagalong-token"

    private let storage = Mutex<URL?>(nil)
    private let credentialStorage = Mutex<any CredentialStore>(InMemoryCredentialStore())
    private let cacheStorage = Mutex<HTTPCache?>(nil)

    var baseURL: URL? {
        get { storage.value }
        set { storage.value = newValue }
    }

    /// Where the token lives: the original kept it in the keychain; on Linux, a file only its owner can
    /// read (`FileCredentialStore`). Default: in memory.
    var credentials: any CredentialStore {
        get { credentialStorage.value }
        set { credentialStorage.value = newValue }
    }

    /// Where read responses are kept (a folder beside the offline queue); `nil` until `main` opens it.
    var httpCache: HTTPCache? {
        get { cacheStorage.value }
        set { cacheStorage.value = newValue }
    }

    /// The logged-in user's token, if any (a store that cannot be read counts as logged out).
    func token() -> String? {
        try? credentials.credential(for: Self.tokenAccount)
    }

    /// Keeps the token of a successful login.
    func setToken(_ token: String) throws {
        try credentials.setCredential(token, for: Self.tokenAccount)
    }
}

/// A minimal lock-protected value for the sample's own state.
final class Mutex<Value>: @unchecked Sendable {
    // Safe: `stored` is only touched while `lock` is held.
    private var stored: Value
    private let lock = NSLock()
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    /// Changes the value in place, under the lock.
    func update<Result>(_ change: (inout Value) -> Result) -> Result {
        lock.withLock { change(&stored) }
    }
}
