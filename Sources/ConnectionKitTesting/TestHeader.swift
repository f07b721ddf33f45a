import Foundation

/// One HTTP header line as it travels on the wire: a name and a value, with the case the sender used.
public struct TestHeader: Sendable, Codable, Equatable, Hashable {
    // MARK: - Properties

    /// The header name, case preserved (compare case-insensitively).
    public var name: String

    /// The header value, with surrounding whitespace trimmed.
    public var value: String

    // MARK: - Init

    /// Creates a header line from a name and a value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Creates a header line from a name and a value (unlabelled shorthand for `init(name:value:)`).
    public init(_ name: String, _ value: String) {
        self.init(name: name, value: value)
    }
}
