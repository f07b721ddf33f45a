import Foundation

/// Why a ``ServerSentEventsRequest`` refused a response (inside `ConnectionError.Kind.parsing(underlying:)`).
public enum ServerSentEventsError: Error, LocalizedError, Sendable, Equatable {
    /// The 2xx response's content type was not `text/event-stream` (`nil`: none was sent).
    case notAnEventStream(contentType: String?)

    /// Names the content type received.
    public var errorDescription: String? {
        switch self {
        case .notAnEventStream(let contentType):
            return "the response is not an event stream (Content-Type: \(contentType ?? "none"))"
        }
    }
}
