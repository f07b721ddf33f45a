import Foundation

/// What the inspector answers one request with: a whole body, or the event stream.
struct InspectorResponse: Sendable {
    var status: Int
    var contentType: String
    var body: Data
    var extraHeaders: [(String, String)] = []
    /// Whether the connection turns into a server-sent event stream after the head.
    var isEventStream = false

    static func json(_ data: Data) -> InspectorResponse {
        InspectorResponse(status: 200, contentType: "application/json", body: data)
    }

    static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8")
        -> InspectorResponse
    {
        InspectorResponse(status: status, contentType: contentType, body: Data(text.utf8))
    }

    static func refused(_ status: Int, _ reason: String) -> InspectorResponse {
        .text(reason + "\n", status: status)
    }
}
