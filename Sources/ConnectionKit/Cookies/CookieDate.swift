import Foundation

/// The cookie date algorithm of RFC 6265 §5.1.1: what browsers accept in `Expires`, whatever format the
/// server wrote (`Wed, 21 Oct 2015 07:28:00 GMT`, `Wednesday, 21-Oct-15 07:28:00 GMT`,
/// `Wed Oct 21 07:28:00 2015`, …). Tokens are found by their shape, not their place, so any order and
/// any delimiters work; the time zone is always UTC, as the RFC says.
enum CookieDate {
    /// The date `text` names, or `nil` when the algorithm fails (the attribute is then ignored).
    static func parse(_ text: String) -> Date? {
        var found = Parts()
        for token in tokens(of: Array(text.utf8)) {
            found.take(token)
        }
        guard let parts = found.complete else { return nil }
        return parts.date
    }

    /// The date-tokens of `bytes`: runs of non-delimiters.
    private static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var tokens: [ArraySlice<UInt8>] = []
        var start: Int?
        for (index, byte) in bytes.enumerated() {
            if isDelimiter(byte) {
                if let begun = start { tokens.append(bytes[begun..<index]) }
                start = nil
            } else if start == nil {
                start = index
            }
        }
        if let begun = start { tokens.append(bytes[begun...]) }
        return tokens
    }

    /// `delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `count` (`minimum`…`maximum`) digits at the start of `token`, followed by a non-digit or the end.
    static func leadingNumber(_ token: ArraySlice<UInt8>, minimum: Int, maximum: Int) -> (
        value: Int, rest: ArraySlice<UInt8>
    )? {
        let digits = token.prefix(while: isDigit)
        guard digits.count >= minimum, digits.count <= maximum else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return (value, token[digits.endIndex...])
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date's fields as they are found, each taken by the first token of its shape.
    fileprivate struct Parts {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?

        mutating func take(_ token: ArraySlice<UInt8>) {
            if time == nil, let found = Self.hmsTime(token) {
                time = found
            } else if day == nil, let found = CookieDate.leadingNumber(token, minimum: 1, maximum: 2) {
                day = found.value
            } else if month == nil, token.count >= 3,
                let index = CookieDate.months.firstIndex(
                    of: String(decoding: token.prefix(3), as: UTF8.self).lowercased())
            {
                month = index + 1
            } else if year == nil, let found = CookieDate.leadingNumber(token, minimum: 2, maximum: 4) {
                year = found.value
            }
        }

        /// `hms-time = time-field ":" time-field ":" time-field`, each one or two digits, then anything
        /// but a digit.
        private static func hmsTime(_ token: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = CookieDate.leadingNumber(token, minimum: 1, maximum: 2), hour.rest.first == 0x3A,
                let minute = CookieDate.leadingNumber(hour.rest.dropFirst(), minimum: 1, maximum: 2),
                minute.rest.first == 0x3A,
                let second = CookieDate.leadingNumber(minute.rest.dropFirst(), minimum: 1, maximum: 2)
            else { return nil }
            return (hour.value, minute.value, second.value)
        }

        /// Every field present and in range (steps 3 to 6 of the algorithm), two-digit years completed.
        var complete: Complete? {
            guard let time, let day, let month, var year else { return nil }
            if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
            guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
                day <= Complete.daysIn(month: month, year: year)
            else { return nil }
            return Complete(
                year: year, month: month, day: day, seconds: time.hour * 3600 + time.minute * 60 + time.second)
        }
    }

    /// A valid calendar date and time of day, in UTC.
    fileprivate struct Complete {
        let year: Int
        let month: Int
        let day: Int
        let seconds: Int

        static func daysIn(month: Int, year: Int) -> Int {
            switch month {
            case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
            case 4, 6, 9, 11: return 30
            default: return 31
            }
        }

        /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
        var date: Date {
            let shifted = month <= 2 ? year - 1 : year
            let era = (shifted >= 0 ? shifted : shifted - 399) / 400
            let yearOfEra = shifted - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + seconds))
        }
    }
}
