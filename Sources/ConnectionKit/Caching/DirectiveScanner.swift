import Foundation

/// Splits a `Cache-Control` value into directives, byte by byte, without allocating per byte.
struct DirectiveScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The next directive's lowercased name and argument, or `nil` at the end.
    mutating func next() -> (String, String?)? {
        while index < bytes.count {
            skip { $0 == 0x2C || Self.isSpace($0) }
            let nameStart = index
            skip { $0 != 0x2C && $0 != 0x3D && !Self.isSpace($0) }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            skip(while: Self.isSpace)
            var argument: String?
            if index < bytes.count, bytes[index] == 0x3D {
                index += 1
                skip(while: Self.isSpace)
                argument = readArgument()
            }
            // Anything after the argument up to the next comma is not part of the grammar: dropped.
            skip { $0 != 0x2C }
            if !name.isEmpty { return (name, argument) }
        }
        return nil
    }

    private mutating func readArgument() -> String {
        guard index < bytes.count, bytes[index] == 0x22 else {
            let start = index
            skip { $0 != 0x2C && !Self.isSpace($0) }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        index += 1
        var value: [UInt8] = []
        while index < bytes.count, bytes[index] != 0x22 {
            if bytes[index] == 0x5C, index + 1 < bytes.count { index += 1 }
            value.append(bytes[index])
            index += 1
        }
        if index < bytes.count { index += 1 }
        return String(decoding: value, as: UTF8.self)
    }

    private mutating func skip(while predicate: (UInt8) -> Bool) {
        while index < bytes.count, predicate(bytes[index]) { index += 1 }
    }
}
