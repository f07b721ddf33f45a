import Foundation

/// Reads the bytes of an HTTP date front to back (RFC 9110 §5.6.7's grammar): each read takes exactly the
/// bytes its rule allows and fails otherwise, so that a lenient reading can never creep in.
struct HTTPDateCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether every byte was read: text after a date makes it no date.
    var isAtEnd: Bool { index == bytes.count }

    // MARK: - The three formats

    /// `day-name "," SP 2DIGIT SP month SP 4DIGIT SP hour ":" minute ":" second SP "GMT"`
    mutating func imfFixdate() -> HTTPDateFields? {
        guard name(in: Self.shortDays) != nil, byte(","), byte(" "), let day = digits(2), byte(" "),
            let month = name(in: Self.months), byte(" "), let year = digits(4), byte(" "),
            let seconds = timeOfDay(), byte(" "), name(in: Self.zones) != nil
        else { return nil }
        return HTTPDateFields(year: year, month: month + 1, day: day, seconds: seconds)
    }

    /// `day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP hour ":" minute ":" second SP "GMT"`
    mutating func rfc850(now: Date) -> HTTPDateFields? {
        guard name(in: Self.longDays) != nil, byte(","), byte(" "), let day = digits(2), byte("-"),
            let month = name(in: Self.months), byte("-"), let twoDigitYear = digits(2), byte(" "),
            let seconds = timeOfDay(), byte(" "), name(in: Self.zones) != nil
        else { return nil }
        var fields = HTTPDateFields(year: 0, month: month + 1, day: day, seconds: seconds)
        fields.applyFiftyYearRule(twoDigitYear: twoDigitYear, now: now)
        return fields
    }

    /// `day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP hour ":" minute ":" second SP 4DIGIT`
    mutating func asctime() -> HTTPDateFields? {
        guard name(in: Self.shortDays) != nil, byte(" "), let month = name(in: Self.months), byte(" "),
            let day = asctimeDay(), byte(" "), let seconds = timeOfDay(), byte(" "), let year = digits(4)
        else { return nil }
        return HTTPDateFields(year: year, month: month + 1, day: day, seconds: seconds)
    }

    // MARK: - Pieces

    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map { Array($0.utf8) }
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        .map { Array($0.utf8) }
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        .map { Array($0.utf8) }
    private static let zones = [Array("gmt".utf8)]

    /// The index in `names` (lowercase) of the name that comes next, whatever its case.
    private mutating func name(in names: [[UInt8]]) -> Int? {
        for (position, candidate) in names.enumerated() where index + candidate.count <= bytes.count {
            var matches = true
            for (offset, letter) in candidate.enumerated() where bytes[index + offset] | 0x20 != letter {
                matches = false
                break
            }
            if matches {
                index += candidate.count
                return position
            }
        }
        return nil
    }

    /// Whether the next byte is `expected`, read if so.
    private mutating func byte(_ expected: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: expected) else { return false }
        index += 1
        return true
    }

    /// The value of exactly `count` decimal digits.
    private mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<count {
            let digit = bytes[index + offset] &- UInt8(ascii: "0")
            guard digit <= 9 else { return nil }
            value = value * 10 + Int(digit)
        }
        index += count
        return value
    }

    /// `hour ":" minute ":" second` as seconds since midnight; `60` is a leap second.
    private mutating func timeOfDay() -> Int? {
        guard let hour = digits(2), hour <= 23, byte(":"), let minute = digits(2), minute <= 59, byte(":"),
            let second = digits(2), second <= 60
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// asctime's day: two digits, or a space and one digit.
    private mutating func asctimeDay() -> Int? {
        byte(" ") ? digits(1) : digits(2)
    }
}
