import Foundation

extension JSON: CustomDebugStringConvertible {
    /// The same compact JSON text as ``description``.
    public var debugDescription: String { description }

    /// Compact JSON text with sorted keys, as `JSONEncoder` with `.sortedKeys` writes it, or `nil` when a
    /// number is not finite (JSON has no text for it).
    ///
    /// Written with a work list instead of recursion: a value nested a hundred thousand levels deep (which
    /// code can build, though no decoder accepts it) prints instead of overflowing the stack.
    func compactText() -> String? {
        enum Step {
            case value(JSON)
            case text(String)
        }
        var output = ""
        var steps: [Step] = [.value(self)]
        while let step = steps.popLast() {
            switch step {
            case .text(let text):
                output += text
            case .value(.null):
                output += "null"
            case .value(.bool(let value)):
                output += value ? "true" : "false"
            case .value(.number(let value)):
                guard value.isFinite else { return nil }
                output += Self.numberText(value)
            case .value(.string(let value)):
                Self.appendQuoted(value, to: &output)
            case .value(.array(let elements)):
                output += "["
                steps.append(.text("]"))
                for (index, element) in elements.enumerated().reversed() {
                    steps.append(.value(element))
                    if index > 0 { steps.append(.text(",")) }
                }
            case .value(.object(let members)):
                output += "{"
                steps.append(.text("}"))
                for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated().reversed() {
                    steps.append(.value(member.value))
                    var key = ""
                    Self.appendQuoted(member.key, to: &key)
                    steps.append(.text(key + ":"))
                    if index > 0 { steps.append(.text(",")) }
                }
            }
        }
        return output
    }

    /// A finite number as `JSONEncoder` writes it: Swift's shortest form, without a trailing `.0`.
    private static func numberText(_ value: Double) -> String {
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// `text` as a JSON string, escaped as `JSONEncoder` escapes it (`/` included).
    private static func appendQuoted(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "/": output += "\\/"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{8}": output += "\\b"
            case "\u{C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
