import ConnectionKit
import Foundation

/// The app's superclass: every Tag Along endpoint inherits the base URL, the JSON handling, the
/// authorization, the callback queue and the one place where failures are reported.
class TagAlongRequest<Output: Decodable & Sendable>: JSONConnectionRequest<Output>, @unchecked Sendable {
    // Safe: no stored state of its own; settings are read from the app's configuration.

    override init() {
        super.init()
        // A command-line tool: handlers run on the app's own queue rather than the main queue.
        callbackQueue = AppConfiguration.callbackQueue
    }

    override var baseURL: URL? { AppConfiguration.shared.baseURL }

    override var timeoutInterval: TimeInterval { 10 }

    /// The original app's `setNumberOfTimesToRetryOnTimeout:2`: timeouts only, other errors are not retried.
    override var retryPolicy: RetryPolicy { .retryOnTimeout(times: 2) }

    /// The logged-in user's token, sent as the Basic user name (as the original app did); read on
    /// every attempt, so a login takes effect on the next request.
    override var authorization: Authorization? {
        AppConfiguration.shared.token().map { .tokenAsUsername($0) }
    }

    /// The one place for failures (the original app's `handleFailure:`). Cancellations are not failures
    /// the user needs to hear about.
    override func handleConnectionError(_ error: any Error) {
        if (error as? ConnectionError)?.isCancelled != true {
            Terminal.error(error.localizedDescription)
        }
        super.handleConnectionError(error)
    }
}
