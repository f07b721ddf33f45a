import Foundation

/// A streaming request's body sink: decodes each chunk and hands the elements on, keeping nothing but
/// the decoder's unfinished element (so a stream has no total size limit).
final class DecodingSink<Element: Sendable>: BodySink {
    private var decoder: any StreamDecoder<Element>
    /// Hands elements decoded from so many bytes on; answers the transfer's demand.
    private let deliver: ([Element], Int) throws -> TransferDemand
    /// Sees the decoder after every chunk (a server-sent events request reads its last event ID).
    private let observe: (any StreamDecoder<Element>, [Element]) -> Void

    init(
        decoder: any StreamDecoder<Element>, observe: @escaping (any StreamDecoder<Element>, [Element]) -> Void,
        deliver: @escaping ([Element], Int) throws -> TransferDemand
    ) {
        self.decoder = decoder
        self.observe = observe
        self.deliver = deliver
    }

    func append(_ data: Data) throws -> TransferDemand {
        var elements: [Element] = []
        do {
            try Self.parsing { try decoder.decode(data, into: &elements) }
        } catch {
            // The elements before the bad one go out first; the failure ends the run after them.
            if !elements.isEmpty { _ = try? deliver(elements, data.count) }
            throw error
        }
        observe(decoder, elements)
        guard !elements.isEmpty else { return .more }
        return try deliver(elements, data.count)
    }

    func finish() throws -> CompletedBody {
        let elements = try Self.parsing { try decoder.finish() }
        // The body is over: there is nothing left to hold back, whatever the answer.
        if !elements.isEmpty { _ = try deliver(elements, 0) }
        return .memory(Data())
    }

    func discard() {}

    /// A decoder's own error is a parsing error; a `ConnectionError` (a size limit) stays what it is.
    private static func parsing<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as ConnectionError {
            throw error
        } catch {
            throw ConnectionError(.parsing(underlying: error))
        }
    }
}
