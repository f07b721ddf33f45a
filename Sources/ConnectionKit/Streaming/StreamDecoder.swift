import Foundation

/// Cuts a response body into elements as its bytes arrive, for a ``StreamingConnectionRequest``.
///
/// A decoder sees the body once, in order, in chunks of any size (a chunk may end in the middle of an
/// element, or of a UTF-8 sequence); it keeps what it needs of an unfinished element until the next
/// chunk. A new decoder is made for every response, so a retry starts from a clean state.
///
/// An element larger than the decoder's limit throws `ConnectionError` with
/// `ConnectionError.Kind.responseTooLarge(limit:)`; any other thrown error fails the request as
/// `ConnectionError.Kind.parsing(underlying:)`.
public protocol StreamDecoder<Element> {
    /// What the decoder produces.
    associatedtype Element: Sendable

    /// Takes the next chunk of the body and returns the elements it completed, in order.
    mutating func decode(_ chunk: Data) throws -> [Element]

    /// Takes the next chunk and appends the elements it completed to `elements`. When it throws, the
    /// elements appended before the bad one are still delivered, before the failure. Default: appends
    /// what ``decode(_:)`` returns (so a throw loses the chunk's earlier elements); the decoders
    /// ConnectionKit ships implement it.
    mutating func decode(_ chunk: Data, into elements: inout [Element]) throws

    /// The body ended: returns what the last chunk left complete (or throws if an unfinished element
    /// is an error for this format).
    mutating func finish() throws -> [Element]
}

extension StreamDecoder {
    /// Appends what ``decode(_:)`` returns.
    public mutating func decode(_ chunk: Data, into elements: inout [Element]) throws {
        elements += try decode(chunk)
    }
}
