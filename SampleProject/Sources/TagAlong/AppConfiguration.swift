import ConnectionKit
import Foundation

/// Where the app talks to: the embedded demo server or `--base-url`.
final class AppConfiguration: Sendable {
    static let shared = AppConfiguration()
    private let storage = Mutex<URL?>(nil)

    var baseURL: URL? {
        get { storage.value }
        set { storage.value = newValue }
    }
}

/// A minimal lock-protected value for the sample's own state.
final class Mutex<Value>: @unchecked Sendable {
    // Safe: `stored` is only touched while `lock` is held.
    private var stored: Value
    private let lock = NSLock()
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
