import ConnectionKit
import Foundation
import Testing

/// Records a streaming request's elements in the order the callback queue saw them; its endings are
/// recorded by an ``EndingRecorder`` (the one recorder of endings in these tests), so that ``ended(within:)``
/// and ``connectionError()`` watch for a second ending during the settle window before they return.
final class StreamRecorder<Element: Sendable>: Sendable {
    /// The recorder of the request's endings.
    let endingRecorder: EndingRecorder
    private let request: StreamingConnectionRequest<Element>
    /// Each element, with how many endings had been recorded when it arrived (on the same serial queue).
    private let received = Locked<[(element: Element, endingsBefore: Int)]>([])
    private let signals = Locked<[@Sendable () -> Void]>([])

    /// Records `request`'s elements and endings on `queue`; `settle` is how long a check watches for a
    /// second ending (see ``EndingRecorder``).
    init(
        _ request: StreamingConnectionRequest<Element>, queue: DispatchQueue = testCallbackQueue,
        settle: TimeInterval = EndingRecorder.defaultSettle
    ) {
        self.request = request
        endingRecorder = EndingRecorder(settle: settle)
        endingRecorder.track(request, queue: queue) { [signals] in Self.fire(signals) }
        request.elementHandler = { [self] element in
            received.withLock { $0.append((element, endingRecorder.count(request))) }
            Self.fire(signals)
        }
    }

    private static func fire(_ signals: Locked<[@Sendable () -> Void]>) {
        let waiting = signals.withLock { signals in
            defer { signals = [] }
            return signals
        }
        waiting.forEach { $0() }
    }

    var elements: [Element] { received.withLock { $0.map(\.element) } }

    /// Every ending recorded so far, in order.
    var endings: [Result<Int, any Error>] {
        endingRecorder.results(request).map { result in
            result.flatMap { output in (output as? Int).map { .success($0) } ?? .failure(UnexpectedOutcome()) }
        }
    }

    /// Whether an element was recorded after an ending.
    var elementAfterEnding: Bool { received.withLock { $0.contains { $0.endingsBefore > 0 } } }

    /// Waits for the ending, then watches the settle window for a second one (recording an issue for a
    /// missing or a second ending). Returns whether the ending came within `seconds`.
    @discardableResult
    func ended(within seconds: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        await endingRecorder.ended(within: seconds, sourceLocation: sourceLocation)
    }

    /// Waits until `condition` holds, failing the test after `timeout`. For elements; wait for the
    /// ending with ``ended(within:sourceLocation:)``, which also checks that it came once.
    @discardableResult
    func wait(
        timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation,
        until condition: @escaping @Sendable (StreamRecorder) -> Bool
    ) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(self) {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else {
                Issue.record("condition not met within \(timeout) s", sourceLocation: sourceLocation)
                return false
            }
            _ = await waitForSignal(timeout: min(remaining, 0.5)) { signal in
                signals.withLock { $0.append(signal) }
            }
        }
        return true
    }

    /// The single ending's error, after waiting for it and the settle window.
    func connectionError(
        within seconds: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ConnectionError {
        guard await ended(within: seconds, sourceLocation: sourceLocation) else { throw TestTimeout() }
        guard case .failure(let error as ConnectionError)? = endings.first else {
            Issue.record("expected a ConnectionError, got \(endings)", sourceLocation: sourceLocation)
            throw UnexpectedOutcome()
        }
        return error
    }
}
