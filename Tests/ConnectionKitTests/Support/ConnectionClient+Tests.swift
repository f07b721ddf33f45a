import ConnectionKit

extension ConnectionClient {
    /// A client of a test's own, on the transport this test run uses (`CONNECTIONKIT_TEST_TRANSPORT`
    /// makes the process default libcurl): its history and statistics are the test's alone. Falls back
    /// to a URLSession client where libcurl cannot be loaded (the libcurl tests say so themselves).
    static func ownForTests(
        label: String, cookieJar: CookieJar? = nil, httpCache: HTTPCache? = nil, delivery: Delivery = .callbackQueue,
        settings: Settings = Settings(), middleware: [any ConnectionMiddleware] = []
    ) -> ConnectionClient {
        let urlSession = {
            ConnectionClient(
                label: label, cookieJar: cookieJar, httpCache: httpCache, delivery: delivery, settings: settings,
                middleware: middleware)
        }
        guard ConnectionTransport.default.name == "libcurl" else { return urlSession() }
        let libcurl = try? ConnectionClient(
            checking: .libcurl, label: label, cookieJar: cookieJar, httpCache: httpCache, delivery: delivery,
            settings: settings, middleware: middleware)
        return libcurl ?? urlSession()
    }
}
