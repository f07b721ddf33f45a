import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The abusive connections: each kind reconnects as soon as the inspector cuts it off, until stopped.
enum Abuse: CaseIterable {
    /// 16 KiB of CRLF every 10 ms.
    case crlfFlood
    /// A head of folded lines, 16 KiB every 10 ms (a megabyte unless cut off).
    case foldedLines
    /// A head trickled one byte every 100 ms, never ending.
    case slowHead
    /// Requests without the token, one per connection, every 10 ms.
    case noToken

    /// Runs this kind against `port` on the calling thread until `counters` is stopped.
    func run(port: Int, counters: AttackCounters) {
        while !counters.isStopped {
            guard let fd = connectSocket(port: port) else {
                Thread.sleep(forTimeInterval: 0.01)
                continue
            }
            counters.connected()
            attack(fd, port: port, counters: counters)
            close(fd)
        }
    }

    private func attack(_ fd: Int32, port: Int, counters: AttackCounters) {
        let crlf = [UInt8](repeating: 0, count: 16_384).enumerated().map { $0.offset % 2 == 0 ? 13 : 10 } as [UInt8]
        let folded = Array(String(repeating: " b\r\n", count: 4_096).utf8)
        switch self {
        case .crlfFlood:
            keepSending(fd, first: [], then: crlf, every: 0.01, counters: counters)
        case .foldedLines:
            keepSending(
                fd, first: Array("GET / HTTP/1.1\r\nX-Folded: a\r\n".utf8), then: folded, every: 0.01,
                counters: counters)
        case .slowHead:
            keepSending(fd, first: Array("GET / HTTP/1.1\r\nX-Pad: ".utf8), then: [97], every: 0.1, counters: counters)
        case .noToken:
            let request = Array("GET /api/har HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
            if sendAll(fd, request) { counters.sent(request.count) }
            _ = readAll(fd)
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Sends `first`, then `then` every `interval` seconds until the peer stops taking it or the run stops.
    private func keepSending(
        _ fd: Int32, first: [UInt8], then: [UInt8], every interval: Double, counters: AttackCounters
    ) {
        guard sendAll(fd, first) else { return }
        counters.sent(first.count)
        while !counters.isStopped, sendAll(fd, then) {
            counters.sent(then.count)
            Thread.sleep(forTimeInterval: interval)
        }
    }
}

/// A page with the token: asks for /api/statistics every 200 ms and records how long each answer took.
func followAsPage(url: URL, counters: AttackCounters) {
    let port = url.port ?? 0
    let token = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? ""
    let request = Array(
        "GET /api/statistics?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
    while !counters.isStopped {
        let started = now()
        if let fd = connectSocket(port: port) {
            let sent = sendAll(fd, request)
            let answer = readAll(fd)
            close(fd)
            if answer.starts(with: Array("HTTP/1.1 200".utf8)) {
                counters.page(now() - started)
            } else {
                counters.pageFailed(!sent ? "send failed" : answer.isEmpty ? "closed unanswered" : "not 200")
            }
        } else {
            counters.pageFailed("connect failed")
        }
        Thread.sleep(forTimeInterval: 0.2)
    }
}

/// Opens `count` sockets to `port` and sends nothing on them.
func openIdleSockets(_ count: Int, port: Int) -> [Int32] {
    (0..<count).compactMap { _ in connectSocket(port: port) }
}

/// How many of `sockets` the other end has closed.
func closedCount(_ sockets: [Int32]) -> Int {
    sockets.filter { fd in
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }.count
}
