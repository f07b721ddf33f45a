import Foundation

/// A date as its calendar fields, in GMT.
struct HTTPDateFields {
    var year: Int
    var month: Int
    var day: Int
    var seconds: Int

    /// Whether `day` is a day of `month` in `year`.
    var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year)
    }

    /// The date, from the days since 1970-01-01 of the proleptic Gregorian calendar.
    var date: Date? {
        guard isValid else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(Self.daysSinceEpoch(year, month, day) * 86_400 + seconds))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (negative before it), by the era arithmetic of the Gregorian
    /// calendar's 400-year cycle, which needs no table and no calendar object.
    static func daysSinceEpoch(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar year, month and day of `date` in GMT (the inverse of ``daysSinceEpoch(_:_:_:)``).
    static func civil(_ date: Date) -> (year: Int, month: Int, day: Int) {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) + 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The four-digit year of an RFC 850 two-digit year (RFC 9110 §5.6.7): the year of the current
    /// century, unless that puts the timestamp more than fifty years in the future, in which case the
    /// most recent past year with the same last two digits; a year more than fifty years in the past
    /// moves to the next century first, so that the window stays a hundred years around `now`.
    mutating func applyFiftyYearRule(twoDigitYear: Int, now: Date) {
        let today = Self.civil(now)
        year = today.year - today.year % 100 + twoDigitYear
        if year < today.year - 50 { year += 100 }
        let limit = HTTPDateFields(
            year: today.year + 50, month: today.month,
            day: min(today.day, Self.daysIn(month: today.month, year: today.year + 50)),
            seconds: Int(now.timeIntervalSince1970.rounded(.down)) - Self.daysSinceEpoch(
                today.year, today.month, today.day) * 86_400)
        if let candidate = date, let latest = limit.date, candidate > latest { year -= 100 }
    }
}
