import Foundation

/// Debug output (filled in by the debug-output work).
enum DebugOutput {
    static func record(_ emission: ConnectionRegistry.Emission, for request: AnyConnectionRequest) {}
}
