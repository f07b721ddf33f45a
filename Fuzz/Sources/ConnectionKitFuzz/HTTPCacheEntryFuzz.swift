import Foundation

@testable import ConnectionKit

/// An HTTP cache entry file as `DiskHTTPCacheStore` reads it (`HTTPCacheEntry.decode`), and the input as a
/// `Cache-Control` field. What must hold: no trap on any input; an entry that decodes re-encodes to bytes
/// that decode to the same entry; its fields passed the range checks (no control characters, a stored
/// method of GET, a status in 200...599); the freshness and age computed from it are finite and not negative;
/// a parsed delta-seconds is never above 2^31.
enum HTTPCacheEntryFuzz {
    static func run(_ input: Data) {
        let control = CacheControl(String(decoding: input, as: UTF8.self))
        for name in control.arguments.keys {
            if case .value(let seconds) = control.seconds(name), !(0...CacheControl.maximumDelta).contains(seconds) {
                fatalError("a delta-seconds out of range: \(seconds)")
            }
        }
        guard let entry = try? HTTPCacheEntry.decode(input) else { return }
        guard entry.method == "GET", (200...599).contains(entry.status) else {
            fatalError("a decoded entry with a method or status the reader should have refused")
        }
        guard let again = try? HTTPCacheEntry.decode(entry.encoded()), again == entry else {
            fatalError("a decoded entry does not survive encoding")
        }
        let lifetime = HTTPCacheRules.freshnessLifetime(entry)
        let age = HTTPCacheRules.currentAge(entry, now: entry.responseTime.addingTimeInterval(1))
        guard lifetime.isFinite, lifetime >= 0, age.isFinite, age >= 0 else {
            fatalError("freshness \(lifetime) or age \(age) out of range")
        }
        _ = HTTPCacheRules.conditionalHeaders(for: entry)
    }
}
