import Foundation

/// A streaming request's own state, behind its lock.
struct StreamingState<Element: Sendable> {
    var elementHandler: (@Sendable (Element) -> Void)?
    /// The run the counters below belong to.
    var run = RunNumber.beforeFirst
    var received = 0
    /// Received and not yet handed to the consumer.
    var buffered = BufferCapacity(elements: 0, bytes: 0)
    var cancelled = false
    var paused = false
    /// The transfer refused to pause (URLSession): only the whole bound is kept from now on.
    var cannotPause = false
    var pausedHandle: (any TransferHandle)?
    var capacity = BufferCapacity(elements: 0, bytes: 0)
    var channel: ElementChannel<Element>?

    mutating func beginRun(_ run: RunNumber) {
        self.run = run
        (received, cancelled, paused, cannotPause, pausedHandle) = (0, false, false, false, nil)
        buffered = BufferCapacity(elements: 0, bytes: 0)
    }
}

/// A number of elements and of bytes: a bound, or what the buffer holds.
struct BufferCapacity: Sendable {
    var elements: Int
    var bytes: Int

    func exceeds(_ capacity: BufferCapacity) -> Bool {
        elements > capacity.elements || bytes > capacity.bytes
    }
}

/// An element on its way to the consumer, with its share of the body's bytes.
struct BufferedElement<Element: Sendable>: Sendable {
    let element: Element
    let bytes: Int
}
