import Foundation

/// Limits shared by the decoders.
public enum StreamLimits {
    /// The default largest element, 1 MiB: a line, or an event's lines and data together.
    public static let defaultMaximumElementSize = 1024 * 1024

    /// How many body bytes may wait for a slow consumer before a transport that can pause the socket
    /// (libcurl) is paused: 1 MiB, or the request's `maximumBufferedBytes` when that is lower. Waiting
    /// longer buys no speed (the server's data waits in the socket buffers meanwhile, and the transfer
    /// resumes once half of it is taken) but costs memory: a 16 MiB buffer kept a 1 GiB download through a
    /// slow consumer at 47 MiB resident, 1 MiB at 33 MiB, at the same speed.
    public static let pauseThresholdBytes = 1024 * 1024
}
