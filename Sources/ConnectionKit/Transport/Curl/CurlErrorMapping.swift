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
            let failure = ccurl_classify(result)
            if let known = failures[failure.rawValue] {
                return error(known.code, known.message, detail: detail, url: url)
            }
            switch failure {
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

        /// The `URLError` code and the message of each failure `ccurl_classify` names, by its raw value.
        private static let failures: [UInt32: (code: URLError.Code, message: String)] = [
            ccurl_failure_cannot_find_host.rawValue: (.cannotFindHost, "the server's name could not be resolved"),
            ccurl_failure_cannot_connect.rawValue: (.cannotConnectToHost, "could not connect to the server"),
            ccurl_failure_timed_out.rawValue: (.timedOut, "the request timed out"),
            ccurl_failure_connection_lost.rawValue: (.networkConnectionLost, "the connection was lost"),
            ccurl_failure_truncated_body.rawValue:
                (.networkConnectionLost, "the connection closed before the whole body arrived"),
            ccurl_failure_empty_reply.rawValue:
                (.networkConnectionLost, "the server closed the connection without answering"),
            ccurl_failure_bad_server_response.rawValue: (.badServerResponse, "the server's answer is not valid HTTP"),
            ccurl_failure_not_http.rawValue: (.badServerResponse, "the server's answer is not HTTP"),
            ccurl_failure_bad_content_encoding.rawValue:
                (.cannotDecodeContentData, "the compressed body could not be decoded"),
            ccurl_failure_untrusted_certificate.rawValue:
                (.serverCertificateUntrusted, "the server's certificate is not trusted"),
            ccurl_failure_secure_connection.rawValue: (.secureConnectionFailed, "the secure connection failed"),
            ccurl_failure_bad_url.rawValue: (.badURL, "the URL is not valid"),
            ccurl_failure_body_unreadable.rawValue: (.cannotOpenFile, "the request body's file could not be read"),
            ccurl_failure_aborted.rawValue: (.cancelled, "the transfer was cancelled"),
        ]

        /// A `URLError` with `code`, a message that says what happened, and libcurl's text in parentheses.
        static func error(_ code: URLError.Code, _ message: String, detail: String, url: URL?) -> URLError {
            var info: [String: Any] = [NSLocalizedDescriptionKey: detail.isEmpty ? message : "\(message) (\(detail))"]
            info[NSURLErrorFailingURLErrorKey] = url
            return URLError(code, userInfo: info)
        }
    }
#endif
