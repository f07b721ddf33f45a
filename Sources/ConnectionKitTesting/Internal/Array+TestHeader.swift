import Foundation

// MARK: - Case-insensitive lookup

extension Array where Element == TestHeader {
    /// The value of the first header named `name`, compared case-insensitively; `nil` when absent.
    func firstValue(named name: String) -> String? {
        first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Whether a header named `name` is present, compared case-insensitively.
    func contains(named name: String) -> Bool {
        firstValue(named: name) != nil
    }
}
