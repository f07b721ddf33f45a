import Foundation

extension AnyConnectionRequest {
    /// Values for the hooks a one-off request needs, set on one instance instead of in a subclass:
    /// `download.instanceSettings.progressInterval = 0.5`.
    ///
    /// Each is `nil` (the default) until set; a hook whose setting is `nil` keeps its documented default.
    /// The settings are read by the hooks' default implementations, so a subclass that overrides a hook
    /// decides alone (its override is what the request uses, whatever is set here), unless it returns
    /// `super`'s value. Set them before ``AnyConnectionRequest/start()``: a run reads each hook when it needs it
    /// (``AnyConnectionRequest/timeoutInterval`` and ``AnyConnectionRequest/requestHeaderFields`` once per attempt).
    public struct InstanceSettings: Sendable, Equatable {
        /// What ``AnyConnectionRequest/progressInterval`` returns, in seconds; `nil`: its default, 0.1.
        public var progressInterval: TimeInterval?
        /// What ``AnyConnectionRequest/timeoutInterval`` returns, in seconds; `nil`: its default, 60.
        public var timeoutInterval: TimeInterval?
        /// What ``AnyConnectionRequest/retryPolicy`` returns; `nil`: its default, ``RetryPolicy/none``.
        public var retryPolicy: RetryPolicy?
        /// What ``AnyConnectionRequest/requestHeaderFields`` returns; `nil`: its default, `[:]`. A
        /// ``BasicConnectionRequest`` sets them on its ``BasicConnectionRequest/request`` too.
        public var requestHeaderFields: [String: String]?

        /// No setting: every hook keeps its default.
        public init() {}
    }
}
