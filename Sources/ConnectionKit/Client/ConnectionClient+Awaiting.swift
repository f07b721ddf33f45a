extension ConnectionClient {
    /// Runs `body`, a task's wait for one of this client's runs, with the task's jobs on the client's
    /// processing queue (``ProcessingExecutor``); the caller continues on its own executor afterwards.
    func whileAwaitingARun<T: Sendable>(_ body: () async -> T) async -> T {
        #if canImport(Darwin)
            guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else {
                return await body()
            }
        #endif
        return await withTaskExecutorPreference(processingExecutor, operation: body)
    }
}
