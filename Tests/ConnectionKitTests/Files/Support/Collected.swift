import ConnectionKit
import Foundation

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

/// Runs `request` to its end and returns the result (never throws).
func outcome<Output>(_ request: ConnectionRequest<Output>) async -> Result<Output, any Error> {
    do {
        return .success(try await request.value())
    } catch {
        return .failure(error)
    }
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
