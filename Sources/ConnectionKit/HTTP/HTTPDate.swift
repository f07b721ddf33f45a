import Foundation

/// Parses the three HTTP date formats of RFC 9110 §5.6.7, strictly, without `DateFormatter`:
///
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`, its two-digit year read by the fifty-year rule
/// - asctime: `Sun Nov  6 08:49:37 1994`
///
/// Day names, month names and `GMT` are matched without regard to case. Anything else is not a date
/// (`nil`): a missing comma, dashes in a format without them, another separator in the time, a one-digit
/// hour, a space too many or too few, a zone other than `GMT`, a day the month does not have. The weekday
/// must be a weekday's name but is not checked against the date, as browsers do not check it either.
///
/// The cache reads `Expires`, `Date` and `Last-Modified` with it on every lookup, so a parse only reads the
/// string's bytes in place: no formatter, no calendar, no allocation.
enum HTTPDate {
    /// The longest text read: an RFC 850 date with `Wednesday`, the longest weekday, is 33 bytes.
    private static let maximumLength = 33

    /// The date `string` names, or `nil` when it is not exactly one of the three formats.
    static func parse(_ string: String) -> Date? {
        parse(string, now: nil)
    }

    /// The date `string` names, or `nil` when it is not exactly one of the three formats.
    /// `now` (the current time when `nil`) places an RFC 850 two-digit year.
    static func parse(_ string: String, now: Date?) -> Date? {
        var text = string
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count <= maximumLength, bytes.count >= 24 else { return nil }
            var cursor = HTTPDateCursor(bytes: bytes)
            let fields: HTTPDateFields?
            if bytes[3] == UInt8(ascii: ",") {
                fields = cursor.imfFixdate()
            } else if bytes[3] == UInt8(ascii: " ") {
                fields = cursor.asctime()
            } else {
                fields = cursor.rfc850(now: now ?? Date())
            }
            guard let fields, cursor.isAtEnd else { return nil }
            return fields.date
        }
    }
}
