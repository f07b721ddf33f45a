import Foundation

/// Limits shared by the decoders.
public enum StreamLimits {
    /// The default largest element, 1 MiB: a line, or an event's lines and data together.
    public static let defaultMaximumElementSize = 1024 * 1024
}
