import Foundation

/// Keeps secrets (tokens, passwords) by account key, so a request's ``AnyConnectionRequest/authorization``
/// hook can read the current one at send time and a refresh can replace it.
///
/// ConnectionKit ships ``InMemoryCredentialStore``, ``FileCredentialStore`` (a 0600 file, written atomically)
/// and, where the `Security` framework exists, `KeychainCredentialStore`. Every method may be called from
/// any thread.
/// - SeeAlso: <doc:client-and-authorization>
public protocol CredentialStore: Sendable {
    /// The credential stored for `account`, or `nil` when there is none.
    func credential(for account: String) throws -> String?

    /// Stores `credential` for `account`, replacing any earlier one.
    func setCredential(_ credential: String, for account: String) throws

    /// Removes the credential for `account`; removing a missing one is not an error.
    func deleteCredential(for account: String) throws
}
