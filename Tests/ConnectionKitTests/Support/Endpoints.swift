import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Data endpoint at a given URL, for tests that only care about the lifecycle.
class FetchData: ConnectionRequest<Data>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL?
    init(_ target: URL?) { self.target = target }
    override var url: URL? { target }
}

/// A JSON endpoint at a given URL.
final class FetchJSON: JSONConnectionRequest<JSON>, @unchecked Sendable {
    // Safe: only immutable stored properties.
    let target: URL
    init(_ target: URL) { self.target = target }
    override var url: URL? { target }
}
