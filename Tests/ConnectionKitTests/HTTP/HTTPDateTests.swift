import Foundation
import Testing

@testable import ConnectionKit

/// The HTTP-date parser behind `Expires`, `Date`, `Last-Modified` and `Retry-After` (RFC 9110 §5.6.7).
@Suite("HTTP dates: the three formats, strictly (RFC 9110 §5.6.7)", .offThePool, .timeLimit(.minutes(1)))
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
    static let example = Date(timeIntervalSince1970: 784_111_777)
    /// A fixed present for the two-digit years: 2026-12-07 12:00:00 GMT.
    static let now = Date(timeIntervalSince1970: 1_796_644_800)

    @Test("IMF-fixdate, RFC 850 and asctime name the same instant")
    func theThreeFormats() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: Self.now) == Self.example)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == Self.example)
        #expect(HTTPDate.parse("Sun Nov 06 08:49:37 1994") == Self.example)
    }

    @Test("day names, month names and GMT are read whatever their case")
    func caseInsensitiveNames() {
        #expect(HTTPDate.parse("sUN, 06 nov 1994 08:49:37 gmt") == Self.example)
        #expect(HTTPDate.parse("SUNDAY, 06-NOV-94 08:49:37 Gmt", now: Self.now) == Self.example)
        #expect(HTTPDate.parse("sun NOV  6 08:49:37 1994") == Self.example)
    }

    @Test("dates across the calendar: leap days, the 32-bit limit, before 1970, the leap second")
    func calendarArithmetic() {
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Tue, 19 Jan 2038 03:14:08 GMT") == Date(timeIntervalSince1970: 2_147_483_648))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
        #expect(HTTPDate.parse("Wed, 31 Dec 1969 23:59:59 GMT") == Date(timeIntervalSince1970: -1))
        #expect(HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT") == Date(timeIntervalSince1970: 1_483_228_800))
        #expect(HTTPDate.parse("Mon, 29 Feb 2100 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Sat, 31 Apr 2026 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Sat, 00 Apr 2026 00:00:00 GMT") == nil)
    }

    @Test(
        "anything but the three formats is no date",
        arguments: [
            "Thu 01 Jan 2037 00:00:00 GMT",  // no comma
            "Thu, 01-Jan-2037 00:00:00 GMT",  // dashes in IMF-fixdate
            "Thu, 01 Jan 2037 00.00.00 GMT",  // periods in the time
            "Thu, 01 Jan 2037 0:00:00 GMT",  // one-digit hour
            "Thu, 01 Jan 2037  00:00:00 GMT",  // an extra space
            "Thu,  01 Jan 2037 00:00:00 GMT",
            " Thu, 01 Jan 2037 00:00:00 GMT",
            "Thu, 01 Jan 2037 00:00:00 GMT ",
            "Thu, 01 Jan 2037 00:00:00 UTC",  // another zone
            "Thu, 01 Jan 2037 00:00:00 AEST",
            "Thu, 01 Jan 2037 00:00:00 +0000",
            "Thu, 01 Jan 2037 00:00:00",
            "Thu, 1 Jan 2037 00:00:00 GMT",  // one-digit day
            "Thu, 01 Jan 37 00:00:00 GMT",  // two-digit year in IMF-fixdate
            "Thu, 01 January 2037 00:00:00 GMT",
            "Thx, 01 Jan 2037 00:00:00 GMT",
            "Thu, 01 Jan 2037 24:00:00 GMT",
            "Thu, 01 Jan 2037 00:60:00 GMT",
            "Thursday, 01 Jan 2037 00:00:00 GMT",  // a long weekday in IMF-fixdate
            "Thu, 01-Jan-37 00:00:00 GMT",  // a short weekday in RFC 850
            "Thursday, 01-Jan-37 00:00:00 UTC",
            "Thursday 01-Jan-37 00:00:00 GMT",
            "Thu Jan 1 00:00:00 2037",  // asctime's one-digit day without its space
            "Thu Jan  1 00:00:00 2037 GMT",
            "Thu Jan  1 00:00:00 37",
            "2037-01-01T00:00:00Z", "0", "-1", "", "Thu, 01 Jan 2037 00:00:00 GMT, Fri, 02 Jan 2037 00:00:00 GMT",
            "Thu, 01 Jan 2037 00:00:00 G\u{301}MT",
        ])
    func invalidFormats(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil)
    }

    @Test("an RFC 850 year is the one within fifty years: past the limit, the previous century")
    func fiftyYearRule() {
        // now is December 2026: "50" is 2050 (24 years ahead) and "80" is 1980 (2080 is more than 50 ahead).
        #expect(year("Saturday, 01-Jan-50 00:00:00 GMT") == 2050)
        #expect(year("Tuesday, 01-Jan-80 00:00:00 GMT") == 1980)
        #expect(year("Friday, 01-Jan-27 00:00:00 GMT") == 2027)
        #expect(year("Saturday, 01-Jan-00 00:00:00 GMT") == 2000)
        // December 2076 is within fifty years of December 2026; January 2077 is not.
        #expect(year("Monday, 07-Dec-76 11:59:59 GMT") == 2076)
        #expect(year("Tuesday, 08-Dec-76 00:00:00 GMT") == 1976)
        #expect(year("Saturday, 01-Jan-77 00:00:00 GMT") == 1977)
        // Late in a century, a small year is in the next one.
        let late = Date(timeIntervalSince1970: 3_786_912_000)  // 2090-01-01
        #expect(HTTPDate.parse("Wednesday, 01-Jan-10 00:00:00 GMT", now: late).map(year(of:)) == 2110)
        #expect(HTTPDate.parse("Saturday, 01-Jan-95 00:00:00 GMT", now: late).map(year(of:)) == 2095)
    }

    @Test("civil dates and day counts are inverses over four centuries")
    func civilRoundTrip() {
        for days in stride(from: -146_097, through: 146_097 * 2, by: 37) {
            let civil = HTTPDateFields.civil(Date(timeIntervalSince1970: TimeInterval(days) * 86_400))
            #expect(HTTPDateFields.daysSinceEpoch(civil.year, civil.month, civil.day) == days)
        }
    }

    private func year(_ text: String) -> Int? {
        HTTPDate.parse(text, now: Self.now).map(year(of:))
    }

    private func year(of date: Date) -> Int {
        HTTPDateFields.civil(date).year
    }
}
