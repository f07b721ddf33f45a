import Foundation

/// The directives of a `Cache-Control` field (RFC 9111 §5.2), parsed so that no text a server or a caller
/// sends can trap, hang or grow without bound.
///
/// Names are compared without case. An argument is a token or a quoted string (a comma inside quotes does
/// not end the directive). When a directive appears twice, the first occurrence counts, and a second one
/// with a different argument makes its delta-seconds ``Seconds/invalid`` (RFC 9111 §4.2.1 lets a cache
/// treat such a response as stale, the safe reading). At most ``maximumDirectives`` directives are read.
struct CacheControl: Equatable, Sendable {
    /// A delta-seconds argument (RFC 9111 §1.2.2).
    enum Seconds: Equatable, Sendable {
        /// The directive is not there.
        case absent
        /// The directive is there but its argument is missing, negative, not a number or conflicting.
        case invalid
        /// The argument, saturated at ``CacheControl/maximumDelta``.
        case value(Int)
    }

    /// The greatest delta-seconds a cache must represent: larger values count as this (RFC 9111 §1.2.2).
    static let maximumDelta = 2_147_483_648
    /// Directives beyond this many are ignored: a field has no use for more, and hostile input is bounded.
    static let maximumDirectives = 64

    /// Lowercased name → argument (`nil` when the directive has none), first occurrence.
    private(set) var arguments: [String: String?] = [:]
    /// Names seen more than once with different arguments.
    private(set) var conflicting: Set<String> = []

    /// Parses one or more field values (several field lines are joined with commas before they arrive here).
    init(_ field: String?) {
        guard let field else { return }
        var scanner = DirectiveScanner(Array(field.utf8))
        while arguments.count < Self.maximumDirectives, let (name, argument) = scanner.next() {
            if let existing = arguments[name] {
                if existing != argument { conflicting.insert(name) }
            } else {
                arguments[name] = argument
            }
        }
    }

    /// Whether the directive `name` (lowercase) is present, with or without an argument.
    func has(_ name: String) -> Bool {
        arguments[name] != nil
    }

    /// The delta-seconds argument of `name` (lowercase).
    func seconds(_ name: String) -> Seconds {
        guard let argument = arguments[name] else { return .absent }
        guard !conflicting.contains(name), let argument else { return .invalid }
        return Self.deltaSeconds(argument).map(Seconds.value) ?? .invalid
    }

    /// Parses delta-seconds: one or more ASCII digits, saturated at ``maximumDelta``; anything else is `nil`.
    static func deltaSeconds(_ text: String) -> Int? {
        var value = 0
        var digits = 0
        for byte in text.utf8 {
            guard (0x30...0x39).contains(byte) else { return nil }
            digits += 1
            if value < maximumDelta { value = min(maximumDelta, value * 10 + Int(byte - 0x30)) }
        }
        return digits > 0 ? value : nil
    }
}
