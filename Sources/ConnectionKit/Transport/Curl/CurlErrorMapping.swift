#if canImport(CCurlShim)
    import CCurlShim
    import Foundation
    import FoundationNetworking

    /// Gives a libcurl result the `URLError` code that URLSession gives the same failure (after
    /// `TransportErrorMapping`), so that error kinds, messages and retry decisions do not depend on
    /// the transport.
    enum CurlErrorMapping {
        /// The error for a failed `result` (a CURLcode); `detail` is libcurl's message for it, and
        /// `responseArrived` says whether a final response head was complete before the failure.
        static func error(forResult result: Int32, detail: String, url: URL?, responseArrived: Bool) -> any Error {
            if detail.contains("Too large response headers") {
                // A receive error as far as the code says; the same typed `responseTooLarge` as over URLSession.
                return TransportErrorMapping.normalized(
                    URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: detail]), responseArrived: responseArrived)
            }
            switch ccurl_classify(result) {
            case ccurl_failure_cannot_find_host:
                return error(.cannotFindHost, "the server's name could not be resolved", detail: detail, url: url)
            case ccurl_failure_cannot_connect:
                return error(.cannotConnectToHost, "could not connect to the server", detail: detail, url: url)
            case ccurl_failure_timed_out:
                return error(.timedOut, "the request timed out", detail: detail, url: url)
            case ccurl_failure_connection_lost:
                return error(.networkConnectionLost, "the connection was lost", detail: detail, url: url)
            case ccurl_failure_truncated_body:
                return error(
                    .networkConnectionLost, "the connection closed before the whole body arrived", detail: detail,
                    url: url)
            case ccurl_failure_empty_reply:
                return error(
                    .networkConnectionLost, "the server closed the connection without answering", detail: detail,
                    url: url)
            case ccurl_failure_bad_server_response:
                return error(.badServerResponse, "the server's answer is not valid HTTP", detail: detail, url: url)
            case ccurl_failure_not_http:
                return error(.badServerResponse, "the server's answer is not HTTP", detail: detail, url: url)
            case ccurl_failure_bad_content_encoding:
                return error(
                    .cannotDecodeContentData, "the compressed body could not be decoded", detail: detail, url: url)
            case ccurl_failure_untrusted_certificate:
                return error(
                    .serverCertificateUntrusted, "the server's certificate is not trusted", detail: detail, url: url)
            case ccurl_failure_secure_connection:
                return error(.secureConnectionFailed, "the secure connection failed", detail: detail, url: url)
            case ccurl_failure_bad_url:
                return error(.badURL, "the URL is not valid", detail: detail, url: url)
            case ccurl_failure_body_unreadable:
                return error(.cannotOpenFile, "the request body's file could not be read", detail: detail, url: url)
            case ccurl_failure_aborted:
                return error(.cancelled, "the transfer was cancelled", detail: detail, url: url)
            case ccurl_failure_out_of_memory where !responseArrived:
                // libcurl's answer to a header line over its own limit (CURL_MAX_HTTP_HEADER), as over URLSession.
                return ConnectionError(.responseTooLarge(limit: TransportErrorMapping.libcurlHeaderLineLimit))
            default:
                // Oversized headers and anything unclassified: the same text matching as for URLSession.
                var info: [String: Any] = [
                    NSLocalizedDescriptionKey: detail.isEmpty ? "libcurl error \(result)" : detail
                ]
                info[NSURLErrorFailingURLErrorKey] = url
                return TransportErrorMapping.normalized(
                    URLError(.unknown, userInfo: info), responseArrived: responseArrived)
            }
        }

        /// A `URLError` with `code`, a message that says what happened, and libcurl's text in parentheses.
        static func error(_ code: URLError.Code, _ message: String, detail: String, url: URL?) -> URLError {
            var info: [String: Any] = [NSLocalizedDescriptionKey: detail.isEmpty ? message : "\(message) (\(detail))"]
            info[NSURLErrorFailingURLErrorKey] = url
            return URLError(code, userInfo: info)
        }
    }
#endif
