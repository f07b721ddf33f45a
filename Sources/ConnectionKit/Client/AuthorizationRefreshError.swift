import Foundation

/// A request was refused (`401`) and renewing its credential failed: every request that was waiting for that
/// renewal fails with this error (inside a `ConnectionError` of kind `other`). Like every authentication
/// failure, its message does not say which credential was wrong.
public struct AuthorizationRefreshError: Error, Sendable, LocalizedError {
    /// What the refresh threw.
    public let underlyingError: any Error

    /// Creates an error wrapping what the refresh threw.
    public init(underlyingError: any Error) {
        self.underlyingError = underlyingError
    }

    /// "your credentials could not be authenticated and could not be renewed. Sign in again."
    public var errorDescription: String? {
        "your credentials could not be authenticated and could not be renewed. Sign in again."
    }
}
