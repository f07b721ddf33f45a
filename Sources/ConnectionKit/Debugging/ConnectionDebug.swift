import Foundation

/// The switches of ConnectionKit's debug output: a request block per attempt and a response
/// block at the end of each run, secrets shown as `<redacted>`.
///
/// Off by default. Switch it on for every request with ``isEnabled``, or for one class (and its
/// subclasses) by overriding ``AnyConnectionRequest/isDebugOutputEnabled``, which wins over the
/// global switch. Blocks go to ``sink`` (default: standard error).
///
/// ```swift
/// ConnectionDebug.isEnabled = true
/// ConnectionDebug.bodyPreviewLimit = 256
/// ConnectionDebug.sink = { text in myLogger.debug("\(text)") }
/// ```
/// - SeeAlso: <doc:registry-and-debugging>
public enum ConnectionDebug {
    private struct Settings {
        var isEnabled = false
        var bodyPreviewLimit = ConnectionDebug.defaultBodyPreviewLimit
        var sink: @Sendable (String) -> Void = ConnectionDebug.standardErrorSink
    }

    private static let settings = Locked(Settings())

    /// The default of ``bodyPreviewLimit``: 1,024 bytes.
    public static let defaultBodyPreviewLimit = 1024

    /// Whether every request prints debug output, unless its class says otherwise through
    /// ``AnyConnectionRequest/isDebugOutputEnabled``. Default `false`. Read when a request starts.
    public static var isEnabled: Bool {
        get { settings.withLock { $0.isEnabled } }
        set { settings.withLock { $0.isEnabled = newValue } }
    }

    /// How many bytes of a request or response body the blocks show; the rest is counted, not
    /// shown. Default ``defaultBodyPreviewLimit`` (1,024). Negative values count as 0.
    public static var bodyPreviewLimit: Int {
        get { settings.withLock { $0.bodyPreviewLimit } }
        set { settings.withLock { $0.bodyPreviewLimit = max(0, newValue) } }
    }

    /// Receives each block (several lines, ending with a newline). Default ``standardErrorSink``.
    /// Called synchronously on ConnectionKit's threads, one block at a time per request, never
    /// while ConnectionKit holds a lock; keep it quick. Secrets never reach it.
    public static var sink: @Sendable (String) -> Void {
        get { settings.withLock { $0.sink } }
        set { settings.withLock { $0.sink = newValue } }
    }

    /// The default sink: writes each block to standard error.
    public static let standardErrorSink: @Sendable (String) -> Void = { text in
        FileHandle.standardError.write(Data(text.utf8))
    }
}
