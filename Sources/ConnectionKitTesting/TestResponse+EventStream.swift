import Foundation

// Streaming answers for testing server-sent events, JSON lines and other streams. Kept apart from
// TestResponse.swift: they only compose `TestBody.stream` and existing faults.
extension TestResponse {
    /// A `text/event-stream` answer sending `chunks` as they are (cut them anywhere, even inside an
    /// event or a line end), one chunk every `interval` seconds. With `thenDrop`, the connection closes
    /// after the last chunk without ending the body: the client sees a dropped connection.
    public static func eventStream(_ chunks: [String], interval: TimeInterval = 0, thenDrop: Bool = false)
        -> TestResponse
    {
        let data = chunks.map { Data($0.utf8) }.filter { !$0.isEmpty }
        let framedLength = data.reduce(0) { $0 + ResponseWriter.framedChunk($1).count }
        return TestResponse(
            headers: [TestHeader("Content-Type", "text/event-stream"), TestHeader("Cache-Control", "no-cache")],
            body: .stream(interval: interval, next: { $0 < data.count ? data[$0] : nil }),
            fault: thenDrop ? .closeAfterBodyBytes(framedLength) : nil)
    }

    /// An endless `text/event-stream` answer carrying only heartbeat comments (`: heartbeat`), one every
    /// `interval` seconds, and never an event. It ends when the client goes away.
    public static func heartbeats(interval: TimeInterval, comment: String = "heartbeat") -> TestResponse {
        let line = Data(": \(comment)\n".utf8)
        return TestResponse(
            headers: [TestHeader("Content-Type", "text/event-stream")],
            body: .stream(interval: interval, next: { _ in line }))
    }

    /// Events with IDs `"1"`, `"2"`, … carrying `data`, resumed after the `Last-Event-ID` that `request`
    /// sent (from the first event when it sent none or an unknown one). At most `perConnection` events
    /// go out per connection, `interval` seconds apart; if more remain, the connection then drops in the
    /// middle of the next event, so that the client must reconnect. `retry`, when set, is sent first
    /// (milliseconds). Use it in a route: `server.route("/feed") { .resumableEventStream(data, answering: $0) }`,
    /// and check the IDs the client sent with `receivedRequests(_:)`.
    public static func resumableEventStream(
        _ data: [String], answering request: TestRequest, perConnection: Int = 2, interval: TimeInterval = 0,
        retry: Int? = nil
    ) -> TestResponse {
        let after = request.header("Last-Event-ID").flatMap { Int($0) } ?? 0
        let first = min(max(0, after), data.count)
        let last = min(data.count, first + max(1, perConnection))
        var chunks = retry.map { ["retry: \($0)\n\n"] } ?? []
        for index in first..<last {
            chunks.append("id: \(index + 1)\ndata: \(data[index])\n\n")
        }
        let drops = last < data.count
        if drops { chunks.append("id: \(last + 1)\ndata: partial") }
        return eventStream(chunks, interval: interval, thenDrop: drops)
    }
}
