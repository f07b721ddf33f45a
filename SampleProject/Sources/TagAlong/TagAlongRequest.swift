import ConnectionKit
import Foundation

/// The app's superclass: every Tag Along endpoint inherits the base URL, the JSON handling and the
/// one place where failures are reported.
class TagAlongRequest<Output: Decodable & Sendable>: JSONConnectionRequest<Output>, @unchecked Sendable {
    // Safe: no stored state of its own; the base URL is read from the app's configuration.

    override var baseURL: URL? { AppConfiguration.shared.baseURL }

    override var timeoutInterval: TimeInterval { 10 }

    override func handleConnectionError(_ error: any Error) {
        Terminal.error("\(typeName): \(error.localizedDescription)")
        super.handleConnectionError(error)
    }
}
