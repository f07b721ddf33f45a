import ConnectionKit

extension ConnectionClient {
    /// A client of a test's own, on the transport this test run uses (`CONNECTIONKIT_TEST_TRANSPORT`
    /// makes the process default libcurl): its history and statistics are the test's alone. Falls back
    /// to a URLSession client where libcurl cannot be loaded (the libcurl tests say so themselves).
    static func ownForTests(
        label: String, httpCache: HTTPCache? = nil, delivery: Delivery = .callbackQueue
    ) -> ConnectionClient {
        guard ConnectionTransport.default.name == "libcurl" else {
            return ConnectionClient(label: label, httpCache: httpCache, delivery: delivery)
        }
        return (try? ConnectionClient(checking: .libcurl, label: label, httpCache: httpCache, delivery: delivery))
            ?? ConnectionClient(label: label, httpCache: httpCache, delivery: delivery)
    }
}
