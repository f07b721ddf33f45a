import Foundation

/// Why an ``OfflineQueue`` refused to open its folder or to accept an operation. It reaches the caller
/// wrapped in `ConnectionError.fileSystem(underlying:)`:
///
/// ```swift
/// if let error = error as? ConnectionError, let reason = error.underlyingError as? OfflineQueueError,
///     case .full = reason.kind
/// { /* wait for deliveries, then enqueue again */ }
/// ```
public struct OfflineQueueError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The folder, or a file or folder in it, is a symbolic link. The queue never follows one: a link
        /// planted there could make it read or overwrite a file elsewhere.
        case symbolicLink(URL)
        /// The folder, or a file or folder in it, can be written by the group or by everyone (its mode is
        /// given): another user could plant operations that would be sent with your credentials.
        case writableByOthers(URL, mode: Int)
        /// The folder, or a file or folder in it, belongs to another user (its user ID is given).
        case ownedByAnotherUser(URL, owner: Int)
        /// Something in the folder is neither a regular file nor a folder where the queue expects one
        /// (e.g. a FIFO or a device).
        case notARegularFile(URL)
        /// Back-pressure: enqueueing would pass ``OfflineQueue/Configuration/maximumPendingOperations`` or
        /// ``OfflineQueue/Configuration/maximumPendingBytes``. Nothing was stored.
        case full(pendingOperations: Int, pendingBytes: Int)
    }

    /// What went wrong.
    public let kind: Kind

    /// Creates the error.
    public init(_ kind: Kind) {
        self.kind = kind
    }

    /// One sentence naming the problem and the path, e.g. `the offline queue's folder /…/outbox is
    /// group- or world-writable (mode 0777); make it private (chmod 700) or choose another`.
    public var description: String {
        switch kind {
        case .symbolicLink(let url):
            return "the offline queue will not open \(url.path): it is a symbolic link"
        case .writableByOthers(let url, let mode):
            return "the offline queue will not open \(url.path): it is group- or world-writable (mode 0"
                + String(mode, radix: 8) + "); make it private to its owner (chmod go-w)"
        case .ownedByAnotherUser(let url, let owner):
            return "the offline queue will not open \(url.path): it is owned by another user (uid \(owner))"
        case .notARegularFile(let url):
            return "the offline queue will not open \(url.path): it is not a regular file or folder"
        case .full(let operations, let bytes):
            return "the offline queue is full (\(operations) operations, \(bytes) body bytes pending); "
                + "the write was not stored"
        }
    }

    /// The same as ``description``.
    public var errorDescription: String? { description }
}
