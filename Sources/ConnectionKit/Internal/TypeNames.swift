import Foundation

/// Class names, worked out once per class: `String(describing:)` on a metatype demangles every
/// time, which made a 10,000-request ``ConnectionRegistry/snapshot()`` cost about 10x more.
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
