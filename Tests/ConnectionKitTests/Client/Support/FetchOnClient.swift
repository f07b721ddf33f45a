import ConnectionKit
import Foundation

/// A Data request that belongs to the client it is given: the `client` hook, which an app superclass
/// overrides once, returns it.
final class FetchOnClient: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    let owner: ConnectionClient

    init(_ target: URL, on owner: ConnectionClient) {
        self.target = target
        self.owner = owner
    }

    override var url: URL? { target }
    override var client: ConnectionClient { owner }
}
