import Foundation

/// A ``CredentialStore`` that forgets everything when the process ends: for tests, previews, and secrets
/// that must never touch the disk.
public final class InMemoryCredentialStore: CredentialStore {
    private let credentials: Locked<[String: String]>

    /// Creates a store holding `credentials` (default: none).
    public init(_ credentials: [String: String] = [:]) {
        self.credentials = Locked(credentials)
    }

    /// The credential stored for `account`, or `nil`.
    public func credential(for account: String) -> String? {
        credentials.withLock { $0[account] }
    }

    /// Stores `credential` for `account`, replacing any earlier one.
    public func setCredential(_ credential: String, for account: String) {
        credentials.withLock { $0[account] = credential }
    }

    /// Removes the credential for `account`.
    public func deleteCredential(for account: String) {
        credentials.withLock { $0[account] = nil }
    }
}
