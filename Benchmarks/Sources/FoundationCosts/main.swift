// What Foundation itself costs per response on this platform, apart from any network: building the
// `HTTPURLResponse` that ConnectionKit's hooks took before 2.0 (`validate`, `parseCompletionData`,
// `retryDecision`). On the libcurl transport ConnectionKit parses the head itself; since the hooks take a
// `ConnectionResponse`, it builds an `HTTPURLResponse` only when user code asks for one (`urlResponse`,
// `httpURLResponse`); URLSession builds its own.
//
//     swift run -c release --package-path Benchmarks FoundationCosts
//
// Prints the median over 5 rounds of 20,000 builds, with the header fields nginx sends for the small
// GET of `Benchmarks/run.sh` (8 fields), and with none, in microseconds of CPU per response.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// CPU seconds of this process so far (every thread).
func cpuSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Median CPU microseconds per `HTTPURLResponse` built with `fields`.
func microsecondsPerResponse(_ fields: [String: String], count: Int = 20_000, rounds: Int = 5) -> Double {
    let url = URL(string: "http://127.0.0.1:8080/1k.bin?42")!
    var figures: [Double] = []
    var kept = 0
    for _ in 0..<rounds {
        let start = cpuSeconds()
        for _ in 0..<count {
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
            kept &+= response?.statusCode ?? 0
        }
        figures.append((cpuSeconds() - start) / Double(count) * 1e6)
    }
    precondition(kept == rounds * count * 200, "every response was built")
    return figures.sorted()[figures.count / 2]
}

let nginx = [
    "Server": "nginx/1.22.1", "Date": "Wed, 02 Dec 2026 05:40:00 GMT", "Content-Type": "application/octet-stream",
    "Content-Length": "1024", "Last-Modified": "Wed, 02 Dec 2026 05:00:00 GMT", "Connection": "keep-alive",
    "ETag": "\"692e7a10-400\"", "Accept-Ranges": "bytes",
]
print("HTTPURLResponse init, nginx's 8 header fields: \(String(format: "%.1f", microsecondsPerResponse(nginx))) µs CPU")
print("HTTPURLResponse init, no header fields:        \(String(format: "%.1f", microsecondsPerResponse([:]))) µs CPU")
