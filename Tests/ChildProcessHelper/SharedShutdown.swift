import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `shutdown-shared`: the shared client shut down from a program's `main`, with the blocking form.
enum SharedShutdown {
    /// A request of another client whose class sends over the process's URLSession transport.
    final class OverProcessURLSession: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let owner = ConnectionClient(label: "other")
        init(_ target: URL) { self.target = target }
        override var url: URL? { target }
        override var client: ConnectionClient { owner }
        override var transport: ConnectionTransport { .urlSession }
    }

    static func run(url: URL, count: Int) async {
        let queue = DispatchQueue(label: "ChildProcessHelper.endings")
        let endings = Counts()
        for _ in 0..<count {
            let request = BasicConnectionRequest(request: URLRequest(url: url))
            request.callbackQueue = queue
            request.completionHandler = { _ in endings.add(success: true) }
            request.failureHandler = { _ in endings.add(success: false) }
            request.start()
        }
        ConnectionClient.shared.shutdownAndWait(gracePeriod: 30)
        queue.sync {}
        let (successes, failures) = endings.values
        print("ENDED \(successes) \(failures)")
        print("AFTER \(await kind(of: BasicConnectionRequest(request: URLRequest(url: url))))")
        print("TRANSPORT \(await kind(of: OverProcessURLSession(url)))")
    }

    /// The kind of the error `request` ends with, or `success`.
    private static func kind<Output>(of request: ConnectionRequest<Output>) async -> String {
        request.callbackQueue = DispatchQueue(label: "ChildProcessHelper.after")
        do {
            _ = try await request.value()
            return "success"
        } catch let error as ConnectionError {
            if case .clientShutDown = error.kind { return "clientShutDown" }
            return "\(error)"
        } catch {
            return "\(error)"
        }
    }

    /// Endings counted from the handlers.
    final class Counts: @unchecked Sendable {
        // Safe: the counts are only touched while `lock` is held.
        private let lock = NSLock()
        private var successes = 0
        private var failures = 0

        func add(success: Bool) {
            lock.lock()
            defer { lock.unlock() }
            if success { successes += 1 } else { failures += 1 }
        }

        var values: (Int, Int) {
            lock.lock()
            defer { lock.unlock() }
            return (successes, failures)
        }
    }
}
