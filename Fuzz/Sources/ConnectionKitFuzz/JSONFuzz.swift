import Foundation

@testable import ConnectionKit

/// `JSON` decoded from a response body, then printed: what `description` prints is JSON that
/// decodes to the same value (at any depth the decoder accepts).
enum JSONFuzz {
    static func run(_ input: Data) {
        guard let value = try? JSONDecoder().decode(JSON.self, from: input) else { return }
        let printed = value.description
        guard let again = try? JSONDecoder().decode(JSON.self, from: Data(printed.utf8)) else {
            fatalError("the description of a decoded JSON value is not JSON: \(printed.prefix(200))")
        }
        guard again == value else { fatalError("the description does not decode to the same value") }
        _ = String(reflecting: value)
        _ = value["a"]?[0]?.intValue
    }
}
