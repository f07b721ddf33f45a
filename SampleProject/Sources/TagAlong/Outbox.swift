import ConnectionKit
import Foundation

/// The app's offline queue of microposts: writes made while the server cannot be reached are kept on
/// disk and delivered, in order, once it can be (the FatFractal SDK's `onOffline:` of the seed tutorial).
enum Outbox {
    /// Opens the queue in `directory` and registers the endpoint classes it may hold, so that queued
    /// posts are sent with the current token.
    static func open(in directory: URL) throws -> OfflineQueue {
        let configuration = OfflineQueue.Configuration(
            onlineRetryInterval: 1, offlineRetryInterval: 10, callbackQueue: AppConfiguration.callbackQueue)
        let queue = try OfflineQueue(directory: directory, configuration: configuration)
        queue.register(CreateMicropost.self) { CreateMicropost(text: "") }
        return queue
    }
}
