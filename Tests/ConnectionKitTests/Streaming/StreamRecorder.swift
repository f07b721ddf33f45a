import ConnectionKit
import Foundation
import Testing

/// Records a streaming request's elements and endings in the order the callback queue saw them.
final class StreamRecorder<Element: Sendable>: Sendable {
    enum Entry {
        case element(Element)
        case ending(Result<Int, any Error>)
    }

    private let entries = Locked<[Entry]>([])
    private let signals = Locked<[@Sendable () -> Void]>([])

    init(_ request: StreamingConnectionRequest<Element>, queue: DispatchQueue = testCallbackQueue) {
        request.callbackQueue = queue
        request.elementHandler = { [self] in record(.element($0)) }
        request.completionHandler = { [self] in record(.ending(.success($0))) }
        request.failureHandler = { [self] in record(.ending(.failure($0))) }
    }

    /// Records a failure from a handler a test installed in place of the recorder's.
    func recordFailure(_ error: any Error) {
        record(.ending(.failure(error)))
    }

    private func record(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
        let waiting = signals.withLock { signals in
            defer { signals = [] }
            return signals
        }
        waiting.forEach { $0() }
    }

    var elements: [Element] {
        entries.withLock { $0.compactMap { if case .element(let e) = $0 { return e } else { return nil } } }
    }

    var endings: [Result<Int, any Error>] {
        entries.withLock { $0.compactMap { if case .ending(let r) = $0 { return r } else { return nil } } }
    }

    /// Whether an element was recorded after an ending.
    var elementAfterEnding: Bool {
        entries.withLock { entries in
            guard let end = entries.firstIndex(where: { if case .ending = $0 { true } else { false } }) else {
                return false
            }
            return entries[end...].contains { if case .element = $0 { true } else { false } }
        }
    }

    /// Waits until `condition` holds, failing the test after `timeout`.
    @discardableResult
    func wait(
        timeout: TimeInterval = 15, sourceLocation: SourceLocation = #_sourceLocation,
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

    /// The single ending's error, after waiting for it.
    func connectionError(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ConnectionError {
        await wait(sourceLocation: sourceLocation) { !$0.endings.isEmpty }
        guard case .failure(let error as ConnectionError)? = endings.first else {
            Issue.record("expected a ConnectionError, got \(endings)", sourceLocation: sourceLocation)
            throw UnexpectedOutcome()
        }
        return error
    }
}

/// The resident set size of this process, in bytes (Linux), or nil.
func residentMemory() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        return digits.map { $0 * 1024 }
    }
    return nil
}
