import Foundation

/// A line of a JSON Lines body that did not decode. It reaches the failure handler inside
/// `ConnectionError.Kind.parsing(underlying:)`.
public struct JSONLinesError: Error, LocalizedError, Sendable {
    /// The 1-based number of the line in the response body (empty lines counted).
    public let lineNumber: Int
    /// The decoder's error.
    public let underlyingError: any Error

    /// Names the line and the decoder's reason.
    public var errorDescription: String? {
        "line \(lineNumber) is not valid JSON for the expected type: \(underlyingError.localizedDescription)"
    }
}
