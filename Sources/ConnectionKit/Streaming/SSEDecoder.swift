import Foundation

/// Decodes a `text/event-stream` body into ``ServerSentEvent``s by the WHATWG EventSource parsing rules.
///
/// - One leading byte order mark is ignored; bytes are decoded as UTF-8 with invalid sequences replaced
///   by U+FFFD.
/// - Lines end with CRLF, LF or CR (a CR that ends one chunk and an LF that starts the next are one
///   line end).
/// - A line starting with `:` is a comment (servers send them as heartbeats); a line without a colon
///   is a field with an empty value; one space after the colon is dropped.
/// - `event` sets the type, `data` appends a line of data, `id` sets the last event ID (ignored when
///   the value contains NUL), `retry` sets ``reconnectionTime`` (ignored unless ASCII digits only);
///   other fields are ignored. Unlike a browser, an `id` that a `Last-Event-ID` header could not carry
///   is ignored too, keeping the previous ID: one longer than ``maximumLastEventIDLength`` bytes, or
///   with a control character other than tab; sent back, it would make every reconnection fail.
/// - An empty line dispatches the event; an event with no data is not dispatched (its type is
///   dropped, its `id` still counts); an event not followed by an empty line when the body ends is
///   never dispatched.
///
/// A line, or an event's data, larger than `maximumEventSize` bytes throws
/// `ConnectionError.Kind.responseTooLarge(limit:)`.
public struct SSEDecoder: StreamDecoder {
    /// The last event ID so far: what a reconnection sends as `Last-Event-ID`.
    public private(set) var lastEventID: String
    /// The reconnection time the server asked for with a `retry` field, in milliseconds; `nil` until then.
    public private(set) var reconnectionTime: Int?
    private let maximumEventSize: Int
    private var pending: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: [UInt8] = []
    private var lastEventIDBuffer: [UInt8]
    /// How many bytes of a possible leading BOM matched so far; `nil` once the BOM question is settled.
    private var bomMatched: Int? = 0
    private var skipsLeadingLF = false

    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The longest `id` value kept, in bytes (4 KiB): a longer one is ignored. Servers refuse header lines
    /// far shorter than ConnectionKit's limit on a request's header fields (nginx: 8 KiB).
    public static let maximumLastEventIDLength = 4096

    /// Creates a decoder. `lastEventID` is the ID to start from (say, one saved from an earlier
    /// connection); `maximumEventSize` defaults to ``StreamLimits/defaultMaximumElementSize``.
    public init(lastEventID: String = "", maximumEventSize: Int = StreamLimits.defaultMaximumElementSize) {
        self.lastEventID = lastEventID
        self.lastEventIDBuffer = Array(lastEventID.utf8)
        self.maximumEventSize = max(1, maximumEventSize)
    }

    /// Returns the events `chunk` completed.
    public mutating func decode(_ chunk: Data) throws -> [ServerSentEvent] {
        var elements: [ServerSentEvent] = []
        try decode(chunk, into: &elements)
        return elements
    }

    /// Appends the elements `chunk` completed to `elements` (those before an error included).
    public mutating func decode(_ chunk: Data, into events: inout [ServerSentEvent]) throws {
        try chunk.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            if let matched = bomMatched {
                index = skipBOM(bytes, matched: matched)
            }
            var start = index
            while index < bytes.count {
                let byte = bytes[index]
                if skipsLeadingLF {
                    skipsLeadingLF = false
                    if byte == 10 {
                        index += 1
                        start = index
                        continue
                    }
                }
                guard byte == 10 || byte == 13 else {
                    index += 1
                    continue
                }
                try endLine(UnsafeBufferPointer(rebasing: bytes[start..<index]), into: &events)
                skipsLeadingLF = byte == 13
                index += 1
                start = index
            }
            guard start < bytes.count else { return }
            guard pending.count + bytes.count - start <= maximumEventSize else {
                throw ConnectionError(.responseTooLarge(limit: Int64(maximumEventSize)))
            }
            pending.append(contentsOf: bytes[start...])
        }
    }

    /// Returns nothing: an event the body left unfinished is discarded, as the specification says.
    public mutating func finish() throws -> [ServerSentEvent] {
        pending.removeAll()
        data.removeAll()
        eventType.removeAll()
        hasData = false
        return []
    }

    // MARK: - Lines

    /// Consumes the leading bytes that belong to a BOM; returns where the body's own bytes start. Bytes
    /// that looked like the start of a BOM but were not go to `pending`, as the start of the first line.
    private mutating func skipBOM(_ bytes: UnsafeBufferPointer<UInt8>, matched: Int) -> Int {
        var matched = matched
        var index = 0
        while index < bytes.count, matched < Self.bom.count {
            guard bytes[index] == Self.bom[matched] else {
                pending.append(contentsOf: Self.bom[0..<matched])
                bomMatched = nil
                return index
            }
            matched += 1
            index += 1
        }
        bomMatched = matched == Self.bom.count ? nil : matched
        return index
    }

    private mutating func endLine(_ tail: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) throws {
        guard pending.count + tail.count <= maximumEventSize else {
            throw ConnectionError(.responseTooLarge(limit: Int64(maximumEventSize)))
        }
        if pending.isEmpty {
            try processLine(tail, into: &events)
            return
        }
        var line = pending
        line.append(contentsOf: tail)
        pending.removeAll(keepingCapacity: true)
        try line.withUnsafeBufferPointer { try processLine($0, into: &events) }
    }

    private mutating func processLine(_ line: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent]) throws {
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        guard first != 58 else { return }  // ":" starts a comment
        let name: UnsafeBufferPointer<UInt8>
        var value: UnsafeBufferPointer<UInt8>
        if let colon = line.firstIndex(of: 58) {
            name = UnsafeBufferPointer(rebasing: line[..<colon])
            value = UnsafeBufferPointer(rebasing: line[(colon + 1)...])
            if value.first == 32 { value = UnsafeBufferPointer(rebasing: value.dropFirst()) }
        } else {
            name = line
            value = UnsafeBufferPointer(start: nil, count: 0)
        }
        switch name.count {
        case 4 where name.elementsEqual("data".utf8):
            guard data.count + value.count + 1 <= maximumEventSize else {
                throw ConnectionError(.responseTooLarge(limit: Int64(maximumEventSize)))
            }
            data.append(contentsOf: value)
            data.append(10)
            hasData = true
        case 5 where name.elementsEqual("event".utf8):
            eventType = Array(value)
        case 2 where name.elementsEqual("id".utf8):
            if Self.isSendableEventID(value) { lastEventIDBuffer = Array(value) }
        case 5 where name.elementsEqual("retry".utf8):
            if !value.isEmpty, value.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                reconnectionTime = Int(String(decoding: value, as: UTF8.self)) ?? Int.max
            }
        default:
            break
        }
    }

    /// Whether `value` can be sent back as `Last-Event-ID`: short enough, and free of NUL and of the
    /// control characters a header field value may not hold.
    private static func isSendableEventID(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        value.count <= maximumLastEventIDLength && !value.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = String(decoding: lastEventIDBuffer, as: UTF8.self)
        guard hasData else {
            eventType.removeAll(keepingCapacity: true)
            return
        }
        data.removeLast()
        let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
        events.append(
            ServerSentEvent(type: type, data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID))
        data.removeAll(keepingCapacity: true)
        eventType.removeAll(keepingCapacity: true)
        hasData = false
    }
}
