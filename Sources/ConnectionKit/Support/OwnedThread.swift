#if canImport(CCurlShim)
    import CCurlShim
    import Foundation

    /// A POSIX thread with a name and a join: a client's shutdown returns only once its threads are
    /// gone, which `Foundation.Thread` cannot wait for. Linux only, like the libcurl transport, its one
    /// user.
    final class OwnedThread: Sendable {
        /// What runs on the thread, handed over through `pthread_create`'s argument.
        private final class Start {
            let name: String
            let body: @Sendable () -> Void
            let identifier: Locked<Int32?>
            init(name: String, body: @escaping @Sendable () -> Void, identifier: Locked<Int32?>) {
                self.name = name
                self.body = body
                self.identifier = identifier
            }
        }

        private let thread: Locked<pthread_t?>
        private let identifier: Locked<Int32?>

        /// Starts a thread named `name` (cut to the 15 bytes Linux keeps) running `body`; `nil` when the
        /// system refuses a new thread.
        init?(name: String, body: @escaping @Sendable () -> Void) {
            let identifier = Locked<Int32?>(nil)
            self.identifier = identifier
            let start = Unmanaged.passRetained(Start(name: name, body: body, identifier: identifier)).toOpaque()
            var thread = pthread_t()
            let created = pthread_create(
                &thread, nil,
                { argument in
                    guard let argument else { return nil }
                    let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                    _ = ccurl_name_current_thread(start.name)
                    start.identifier.withLock { $0 = ccurl_current_thread_id() }
                    start.body()
                    return nil
                }, start)
            guard created == 0 else {
                Unmanaged<Start>.fromOpaque(start).release()
                return nil
            }
            self.thread = Locked(thread)
        }

        /// The thread's kernel id, its entry in `/proc/self/task`; `nil` until it has started.
        var threadID: Int32? { identifier.withLock { $0 } }

        /// Waits until the thread's body returned and the kernel no longer lists the thread. Later calls
        /// return at once. Never call it on the thread itself.
        func join() {
            let thread = self.thread.withLock { thread in
                defer { thread = nil }
                return thread
            }
            guard let thread else { return }
            _ = pthread_join(thread, nil)
            // `pthread_join` returns when the thread's code ended; the kernel drops the task from
            // /proc/self/task microseconds later. Waited for (at most a second), so that a count of
            // the process's threads right after a shutdown is exact.
            guard let id = threadID else { return }
            let deadline = DispatchTime.now() + 1
            while access("/proc/self/task/\(id)", F_OK) == 0, DispatchTime.now() < deadline {
                sched_yield()
            }
        }
    }
#endif
