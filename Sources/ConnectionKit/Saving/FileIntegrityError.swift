import Foundation

/// A saved file did not match what the request declared (``AnyConnectionRequest/expectedFileSize``
/// or ``AnyConnectionRequest/expectedSHA256``). It reaches the failure handler wrapped in
/// `ConnectionError.fileSystem(underlying:)`; nothing is left at the destination.
public struct FileIntegrityError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// Which check failed.
    public enum Check: String, Sendable, Equatable {
        /// The number of bytes.
        case size
        /// The SHA-256 digest.
        case sha256
    }

    /// Which check failed.
    public let check: Check
    /// What the request declared: a byte count, or a lowercase hexadecimal digest.
    public let expected: String
    /// What arrived, in the same form.
    public let actual: String

    /// Creates the error.
    public init(check: Check, expected: String, actual: String) {
        self.check = check
        self.expected = expected
        self.actual = actual
    }

    /// For example `the download's SHA-256 is 9f86…, expected e3b0…`.
    public var description: String {
        switch check {
        case .size: return "the download has \(actual) bytes, expected \(expected)"
        case .sha256: return "the download's SHA-256 is \(actual), expected \(expected)"
        }
    }

    /// The same as ``description``.
    public var errorDescription: String? { description }
}
