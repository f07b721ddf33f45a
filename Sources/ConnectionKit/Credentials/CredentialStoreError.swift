import Foundation

/// Why a ``CredentialStore`` could not read or write a credential. Messages never contain the credential.
public struct CredentialStoreError: Error, Sendable, LocalizedError, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable {
        /// The store's file exists but is not a credential file ConnectionKit wrote (truncated, edited, or
        /// another format). It is left untouched; delete it or write a credential to replace it.
        case corruptFile(URL)
        /// Reading, writing or renaming the store's file failed.
        case fileSystem(URL, underlying: any Error)
        /// A Keychain call failed with this `OSStatus`.
        case keychain(status: Int32)
    }

    /// What went wrong.
    public var kind: Kind

    /// Creates an error.
    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// A one-sentence message.
    public var errorDescription: String? {
        switch kind {
        case .corruptFile(let url):
            return
                "The credential file at \(url.path) is corrupt and cannot be read. Delete it or store a new credential."
        case .fileSystem(let url, let error):
            return "The credential file at \(url.path) could not be accessed: \(error.localizedDescription)"
        case .keychain(let status):
            return "The Keychain refused the operation (OSStatus \(status))."
        }
    }

    /// The same as ``errorDescription``.
    public var description: String { errorDescription ?? "CredentialStoreError" }
}
