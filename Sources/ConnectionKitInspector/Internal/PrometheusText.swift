import ConnectionKit
import Foundation

/// `/metrics` in the Prometheus text exposition format (version 0.0.4).
enum PrometheusText {
    static func render(statistics: [ConnectionStatistics], inFlight: [String: Int]) -> String {
        var lines: [String] = []
        func family(_ name: String, _ type: String, _ help: String) {
            lines.append("# HELP \(name) \(help)")
            lines.append("# TYPE \(name) \(type)")
        }
        family("connectionkit_requests_total", "counter", "Ended runs by request class and outcome.")
        for stats in statistics {
            let type = label(stats.typeName)
            lines.append("connectionkit_requests_total{class=\"\(type)\",outcome=\"finished\"} \(stats.successes)")
            lines.append("connectionkit_requests_total{class=\"\(type)\",outcome=\"failed\"} \(stats.failures)")
            lines.append("connectionkit_requests_total{class=\"\(type)\",outcome=\"cancelled\"} \(stats.cancellations)")
        }
        family("connectionkit_failures_total", "counter", "Failed runs by request class and error kind.")
        for stats in statistics {
            for (kind, count) in stats.failuresByKind.sorted(by: { $0.key < $1.key }) {
                lines.append(
                    "connectionkit_failures_total{class=\"\(label(stats.typeName))\",kind=\"\(label(kind))\"} \(count)")
            }
        }
        family("connectionkit_retries_total", "counter", "Retries by request class.")
        for stats in statistics {
            lines.append("connectionkit_retries_total{class=\"\(label(stats.typeName))\"} \(stats.retries)")
        }
        family("connectionkit_request_duration_seconds", "histogram", "Run duration, start to end, retries included.")
        for stats in statistics {
            let type = label(stats.typeName)
            for bucket in stats.latencyBuckets {
                lines.append(
                    "connectionkit_request_duration_seconds_bucket{class=\"\(type)\",le=\"\(number(bucket.upperBound))\"} \(bucket.count)"
                )
            }
            lines.append(
                "connectionkit_request_duration_seconds_bucket{class=\"\(type)\",le=\"+Inf\"} \(stats.requests)")
            lines.append("connectionkit_request_duration_seconds_sum{class=\"\(type)\"} \(number(stats.latency.sum))")
            lines.append("connectionkit_request_duration_seconds_count{class=\"\(type)\"} \(stats.requests)")
        }
        family("connectionkit_sent_bytes_total", "counter", "Request-body bytes sent by request class.")
        for stats in statistics {
            lines.append("connectionkit_sent_bytes_total{class=\"\(label(stats.typeName))\"} \(stats.bytesSent)")
        }
        family("connectionkit_received_bytes_total", "counter", "Response-body bytes received by request class.")
        for stats in statistics {
            lines.append(
                "connectionkit_received_bytes_total{class=\"\(label(stats.typeName))\"} \(stats.bytesReceived)")
        }
        lines += cacheLines(statistics)
        family("connectionkit_in_flight_requests", "gauge", "Live requests by request class.")
        for (type, count) in inFlight.sorted(by: { $0.key < $1.key }) {
            lines.append("connectionkit_in_flight_requests{class=\"\(label(type))\"} \(count)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `connectionkit_cache_responses_total`: runs by class and how the HTTP cache answered them (`hit`,
    /// `revalidated`, `stale`, `miss`); only classes whose cache answered or was asked.
    static func cacheLines(_ statistics: [ConnectionStatistics]) -> [String] {
        var lines = [
            "# HELP connectionkit_cache_responses_total Runs by request class and HTTP cache result.",
            "# TYPE connectionkit_cache_responses_total counter",
        ]
        for stats in statistics where stats.cache != ConnectionStatistics.CacheCounts() {
            let type = label(stats.typeName)
            let counts = [
                ("hit", stats.cache.hits), ("revalidated", stats.cache.revalidated), ("stale", stats.cache.stale),
                ("miss", stats.cache.misses),
            ]
            for (result, count) in counts {
                lines.append("connectionkit_cache_responses_total{class=\"\(type)\",result=\"\(result)\"} \(count)")
            }
        }
        return lines
    }

    /// A label value with `\`, `"` and newlines escaped, as the format asks.
    static func label(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
