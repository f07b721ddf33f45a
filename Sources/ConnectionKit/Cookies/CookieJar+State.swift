import Foundation

extension CookieJar {
    /// Everything a jar holds, behind its one lock: the cookies indexed by their domain, so that a lookup
    /// reads only the buckets of the request's host and its parent domains.
    struct State {
        private(set) var byDomain: [String: [Cookie]] = [:]
        private(set) var count = 0

        var all: [Cookie] { byDomain.values.flatMap { $0 } }

        /// Stores `cookie` (§5.3 steps 11 and 12), keeping the creation time of the cookie it replaces, then
        /// evicts past the limits. An expired `cookie` only deletes its namesake. A cookie from an insecure
        /// URL never replaces a `Secure` one (RFC 6265bis §5.7 step 16). Returns whether anything changed.
        mutating func insert(
            _ cookie: Cookie, fromSecureOrigin: Bool, now: Date, limits: (perDomain: Int, total: Int)
        ) -> Bool {
            var cookie = cookie
            let key = cookie.key
            if let existing = find(key) {
                if existing.isSecure && !fromSecureOrigin { return false }
                cookie.created = existing.created
                _ = remove(key)
                if cookie.isExpired(at: now) { return true }
            } else if cookie.isExpired(at: now) {
                return false
            }
            byDomain[cookie.domain, default: []].append(cookie)
            count += 1
            evict(domain: cookie.domain, now: now, limits: limits)
            return true
        }

        private func find(_ key: Cookie.Key) -> Cookie? {
            byDomain[key.domain]?.first { $0.name == key.name && $0.path == key.path }
        }

        /// Removes the cookie with `key`; returns whether there was one.
        mutating func remove(_ key: Cookie.Key) -> Bool {
            guard var bucket = byDomain[key.domain],
                let index = bucket.firstIndex(where: { $0.name == key.name && $0.path == key.path })
            else { return false }
            bucket.remove(at: index)
            byDomain[key.domain] = bucket.isEmpty ? nil : bucket
            count -= 1
            return true
        }

        /// RFC 6265 §5.3 step 12: expired cookies go first, then the least recently used of the domain past
        /// its limit, then the least recently used of the jar past its limit.
        private mutating func evict(domain: String, now: Date, limits: (perDomain: Int, total: Int)) {
            if (byDomain[domain]?.count ?? 0) > limits.perDomain || count > limits.total {
                purgeExpired(now: now)
            }
            while let bucket = byDomain[domain], bucket.count > limits.perDomain,
                let oldest = bucket.min(by: Self.lessRecentlyUsed)
            {
                _ = remove(oldest.key)
            }
            while count > limits.total, let oldest = all.min(by: Self.lessRecentlyUsed) {
                _ = remove(oldest.key)
            }
        }

        private static func lessRecentlyUsed(_ lhs: Cookie, _ rhs: Cookie) -> Bool {
            (lhs.lastAccessed, lhs.created) < (rhs.lastAccessed, rhs.created)
        }

        mutating func purgeExpired(now: Date) {
            for (domain, bucket) in byDomain where bucket.contains(where: { $0.isExpired(at: now) }) {
                let kept = bucket.filter { !$0.isExpired(at: now) }
                count -= bucket.count - kept.count
                byDomain[domain] = kept.isEmpty ? nil : kept
            }
        }

        /// The cookies for a request to `host` and `path` (§5.4), longer paths first, then older ones;
        /// marks them used at `now`.
        mutating func matching(host: String, path: String, secure: Bool, now: Date) -> [Cookie] {
            var found: [Cookie] = []
            for domain in Self.domains(of: host) {
                guard let bucket = byDomain[domain] else { continue }
                let exact = domain == host
                var used: [Int] = []
                for (index, cookie) in bucket.enumerated() {
                    guard exact || !cookie.isHostOnly, !cookie.isSecure || secure, !cookie.isExpired(at: now),
                        CookieRules.pathMatches(requestPath: path, cookiePath: cookie.path)
                    else { continue }
                    used.append(index)
                    found.append(cookie)
                }
                // Marked in place (not on a copy of the bucket), so a lookup copies no array.
                for index in used { byDomain[domain]?[index].lastAccessed = now }
            }
            return found.sorted {
                ($0.path.utf8.count, $1.created) > ($1.path.utf8.count, $0.created)
            }
        }

        /// `host` and every parent domain of it (`a.b.c`, `b.c`, `c`); an IP address only itself.
        static func domains(of host: String) -> [String] {
            guard !CookieRules.isIPAddress(host) else { return [host] }
            var domains = [host]
            var rest = Substring(host)
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                if !rest.isEmpty { domains.append(String(rest)) }
            }
            return domains
        }
    }
}
