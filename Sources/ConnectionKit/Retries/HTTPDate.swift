import Foundation

/// Parses the HTTP date formats of RFC 9110 §5.6.7.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",  // IMF-fixdate
        "EEEE, dd-MMM-yy HH:mm:ss zzz",  // RFC 850
        "EEE MMM d HH:mm:ss yyyy",  // asctime
    ]

    /// The longest text tried: every HTTP date is under 40 characters.
    private static let maximumLength = 64

    static func parse(_ string: String) -> Date? {
        // An HTTP date is printable ASCII. Anything else never reaches `DateFormatter`: on Linux it traps
        // ("Incorrect range") on some non-ASCII text, such as a combining mark inside the day, and the text
        // comes from a server's `Retry-After` (found by the http-date fuzz target).
        guard string.utf8.count <= maximumLength, string.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return nil
        }
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: string) { return date }
        }
        return nil
    }
}
