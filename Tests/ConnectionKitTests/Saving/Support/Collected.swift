import ConnectionKit
import Foundation
import Testing

/// Values collected from handlers on any queue.
final class Collected<Value: Sendable>: @unchecked Sendable {
    // Safe: `values` is only touched while `lock` is held.
    private let lock = NSLock()
    private var values: [Value] = []

    func append(_ value: Value) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    var all: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

/// The `ConnectionError` inside what a request threw, or `nil`.
func connectionError(_ result: Result<some Any, any Error>) -> ConnectionError? {
    if case .failure(let error) = result { return error as? ConnectionError }
    return nil
}

/// Whether `error` is a `fileSystem` error.
func isFileSystemError(_ error: ConnectionError?) -> Bool {
    if let error, case .fileSystem = error.kind { return true }
    return false
}

/// Runs `request` to its end and returns the result (never throws); after `timeout` seconds it records
/// an issue and returns ``TestTimeout``.
func outcome<Output>(
    _ request: ConnectionRequest<Output>, timeout: TimeInterval = 120, sourceLocation: SourceLocation = #_sourceLocation
) async -> Result<Output, any Error> {
    do {
        return try await within(timeout, "the ending of \(request.typeName)", sourceLocation: sourceLocation) {
            do {
                return .success(try await request.value())
            } catch {
                return .failure(error)
            }
        }
    } catch {
        return .failure(error)
    }
}

/// The first progress report with bytes in `stream`; records an issue and throws after `timeout` seconds.
func firstProgressWithBytes(
    in stream: AsyncStream<TransferProgress>, timeout: TimeInterval = 30,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> TransferProgress {
    let report = try await within(timeout, "a progress report with bytes", sourceLocation: sourceLocation) {
        () -> TransferProgress? in
        for await report in stream where report.completedBytes > 0 { return report }
        return nil
    }
    return try #require(report, "the progress stream ended before any bytes", sourceLocation: sourceLocation)
}

/// The result `task` (from ``started(_:)``) ends with; records an issue and throws after `timeout` seconds.
func endingResult<Output>(
    of task: Task<Result<Output, any Error>, Never>, timeout: TimeInterval = 30,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> Result<Output, any Error> {
    try await within(timeout, "the ending", sourceLocation: sourceLocation) { await task.value }
}

/// Progress events as an async sequence, for waiting until a transfer is midway.
func progressStream(of request: AnyConnectionRequest) -> AsyncStream<TransferProgress> {
    let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self)
    request.progressHandler = { continuation.yield($0) }
    return stream
}

/// Starts `request` with its handlers installed; the task ends with the run's result.
func started<Output>(_ request: ConnectionRequest<Output>) -> Task<Result<Output, any Error>, Never> {
    let (stream, continuation) = AsyncStream.makeStream(of: Result<Output, any Error>.self)
    request.completionHandler = {
        continuation.yield(.success($0))
        continuation.finish()
    }
    request.failureHandler = {
        continuation.yield(.failure($0))
        continuation.finish()
    }
    request.start()
    return Task {
        for await result in stream { return result }
        return .failure(ConnectionError.cancelled)
    }
}
