import Foundation

/// Class names, worked out once per class: `String(describing:)` on a metatype demangles the name
/// on every call, and snapshots, events, errors and debug output ask for it all the time.
enum TypeNames {
    private static let cache = Locked<[ObjectIdentifier: String]>([:])

    static func name(of type: AnyConnectionRequest.Type) -> String {
        let key = ObjectIdentifier(type)
        if let name = cache.withLock({ $0[key] }) { return name }
        let name = String(describing: type)
        cache.withLock { $0[key] = name }
        return name
    }
}
