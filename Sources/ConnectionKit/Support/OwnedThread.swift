#if canImport(CCurlShim)
    import CCurlShim
    import Glibc

    /// A POSIX thread with a name and a join: a client's shutdown returns only once its threads are
    /// gone, which `Foundation.Thread` cannot wait for.
    final class OwnedThread: Sendable {
        /// What runs on the thread, handed over through `pthread_create`'s argument.
        private final class Start {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }

        private let thread: Locked<pthread_t?>

        /// Starts a thread named `name` (cut to the 15 bytes Linux keeps) running `body`; `nil` when the
        /// system refuses a new thread. Linux only, like the libcurl transport, its one user.
        init?(name: String, body: @escaping @Sendable () -> Void) {
            let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
            var thread = pthread_t()
            let created = pthread_create(
                &thread, nil,
                { argument in
                    guard let argument else { return nil }
                    let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                    _ = ccurl_name_current_thread(start.name)
                    start.body()
                    return nil
                }, start)
            guard created == 0 else {
                Unmanaged<Start>.fromOpaque(start).release()
                return nil
            }
            self.thread = Locked(thread)
        }

        /// Waits until the thread's body returned and the thread is gone. Later calls return at once. Never
        /// call it on the thread itself.
        func join() {
            guard
                let thread = self.thread.withLock({ thread in
                    defer { thread = nil }
                    return thread
                })
            else { return }
            _ = pthread_join(thread, nil)
        }
    }
#endif
