import ConnectionKit
import Foundation
import Testing

/// Feeds `chunks` to a fresh decoder and returns the events and the decoder.
private func decode(_ chunks: [[UInt8]], maximumEventSize: Int = 1024 * 1024) throws -> ([ServerSentEvent], SSEDecoder)
{
    var decoder = SSEDecoder(maximumEventSize: maximumEventSize)
    var events: [ServerSentEvent] = []
    for chunk in chunks {
        events += try decoder.decode(Data(chunk))
    }
    events += try decoder.finish()
    return (events, decoder)
}

private func decode(_ text: String) throws -> [ServerSentEvent] {
    try decode([Array(text.utf8)]).0
}

/// The same text fed one byte at a time.
private func decodeBytewise(_ text: String) throws -> [ServerSentEvent] {
    try decode(Array(text.utf8).map { [$0] }).0
}

@Suite("SSEDecoder follows the WHATWG EventSource parsing rules", .offThePool, .timeLimit(.minutes(1)))
struct SSEDecoderTests {
    // MARK: - The specification's own examples

    @Test("spec example: three data lines make one message with the lines joined by LF")
    func specStockTicker() throws {
        let text = "data: YHOO\ndata: +2\ndata: 10\n\n"
        #expect(try decode(text) == [ServerSentEvent(data: "YHOO\n+2\n10")])
        #expect(try decodeBytewise(text) == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test("spec example: comment, id, an id without value resetting it, and one leading space only removed")
    func specIdentifiers() throws {
        let text = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
        let expected = [
            ServerSentEvent(data: "first event", lastEventID: "1"),
            ServerSentEvent(data: "second event", lastEventID: ""),
            ServerSentEvent(data: " third event", lastEventID: ""),
        ]
        #expect(try decode(text) == expected)
        #expect(try decodeBytewise(text) == expected)
    }

    @Test(
        "spec example: empty data dispatches an empty string, two empty data lines one LF, an unterminated block nothing"
    )
    func specEmptyData() throws {
        let text = "data\n\ndata\ndata\n\ndata:"
        #expect(try decode(text) == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
    }

    @Test("spec example: 'data:test' and 'data: test' are the same event")
    func specSpaceAfterColon() throws {
        #expect(
            try decode("data:test\n\ndata: test\n\n") == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    // MARK: - Fields

    @Test("event sets the type of its event only; the default type is message")
    func eventType() throws {
        let events = try decode("event: add\ndata: 1\n\ndata: 2\n\n")
        #expect(events.map(\.type) == ["add", "message"])
    }

    @Test("an event field in a block without data is dropped with the block")
    func eventTypeResetWithoutData() throws {
        #expect(try decode("event: add\n\ndata: x\n\n") == [ServerSentEvent(type: "message", data: "x")])
    }

    @Test("an id persists to later events and survives a block without data")
    func idPersists() throws {
        let (events, decoder) = try decode([Array("id: 7\ndata: a\n\ndata: b\n\nid: 8\n\n".utf8)])
        #expect(events.map(\.lastEventID) == ["7", "7"])
        #expect(decoder.lastEventID == "8")
    }

    @Test("an id containing NUL is ignored")
    func idWithNUL() throws {
        let events = try decode("id: 1\ndata: a\n\nid: 2\u{0}3\ndata: b\n\n")
        #expect(events.map(\.lastEventID) == ["1", "1"])
    }

    @Test("an id Last-Event-ID could not carry (over the size limit, or with a control character) is ignored")
    func idTooLongOrUnsendable() throws {
        let longest = String(repeating: "x", count: SSEDecoder.maximumLastEventIDLength)
        let tooLong = longest + "x"
        let text = "id: 1\ndata: a\n\nid: \(tooLong)\ndata: b\n\nid: 2\u{1}\ndata: c\n\nid: \(longest)\ndata: d\n\n"
        let events = try decode(text)
        #expect(events.map(\.lastEventID) == ["1", "1", "1", longest])
        #expect(try decode("id: a\tb\ndata: e\n\n").map(\.lastEventID) == ["a\tb"])
    }

    @Test(
        "retry takes ASCII digits only; anything else is ignored",
        arguments: [
            ("retry: 1500\n", 1500), ("retry: 15a\n", nil), ("retry: -1\n", nil), ("retry:\n", nil),
            ("retry: 1.5\n", nil), ("retry:  20\n", nil), ("retry: 20\nretry: x\n", 20),
        ] as [(String, Int?)])
    func retry(line: String, expected: Int?) throws {
        #expect(try decode([Array(line.utf8)]).1.reconnectionTime == expected)
    }

    @Test("comments are ignored, also between data lines")
    func comments() throws {
        #expect(try decode(": hi\ndata: a\n: keep-alive\ndata: b\n\n:\n\n") == [ServerSentEvent(data: "a\nb")])
    }

    @Test("a line without a colon is a field name with an empty value; unknown fields are ignored")
    func fieldWithoutColon() throws {
        #expect(try decode("data\nfoo: bar\nevent\n\n") == [ServerSentEvent(type: "message", data: "")])
    }

    @Test("the field name is case-sensitive")
    func caseSensitive() throws {
        #expect(try decode("Data: x\n\n").isEmpty)
    }

    // MARK: - Line ends

    @Test("CR, LF and CRLF each end a line", arguments: ["\r", "\n", "\r\n"])
    func lineEnds(end: String) throws {
        let text = "data: a\(end)data: b\(end)\(end)"
        #expect(try decode(text) == [ServerSentEvent(data: "a\nb")])
        #expect(try decodeBytewise(text) == [ServerSentEvent(data: "a\nb")])
    }

    @Test("a CR ending one chunk and an LF starting the next are one line end")
    func crlfAcrossChunks() throws {
        let (events, _) = try decode([Array("data: a\r".utf8), Array("\ndata: b\r".utf8), Array("\n\r\n".utf8)])
        #expect(events == [ServerSentEvent(data: "a\nb")])
    }

    @Test("mixed line ends in one stream")
    func mixedLineEnds() throws {
        #expect(try decode("data: a\r\ndata: b\rdata: c\n\r\n") == [ServerSentEvent(data: "a\nb\nc")])
    }

    // MARK: - Byte order mark and encoding

    @Test("one leading BOM is ignored, also split across chunks")
    func leadingBOM() throws {
        #expect(try decode("\u{FEFF}data: x\n\n") == [ServerSentEvent(data: "x")])
        let (events, _) = try decode([[0xEF], [0xBB], [0xBF] + Array("data: x\n\n".utf8)])
        #expect(events == [ServerSentEvent(data: "x")])
    }

    @Test("a second BOM is not ignored: it becomes part of the field name")
    func secondBOM() throws {
        #expect(try decode("\u{FEFF}\u{FEFF}data: x\n\n").isEmpty)
    }

    @Test("bytes that start like a BOM but are not one are kept")
    func notABOM() throws {
        let (events, _) = try decode([[0xEF], Array("\ndata: x\n\n".utf8)])
        #expect(events == [ServerSentEvent(data: "x")])
    }

    @Test("invalid UTF-8 is decoded with U+FFFD replacement, not rejected")
    func invalidUTF8() throws {
        let (events, _) = try decode([Array("data: a".utf8) + [0xFF, 0xC3] + Array("b\n\n".utf8)])
        #expect(events == [ServerSentEvent(data: "a\u{FFFD}\u{FFFD}b")])
    }

    @Test("a multi-byte character split across chunks is decoded whole")
    func splitCharacter() throws {
        let bytes = Array("data: é€\n\n".utf8)
        let (events, _) = try decode(bytes.map { [$0] })
        #expect(events == [ServerSentEvent(data: "é€")])
    }

    // MARK: - Dispatch

    @Test("the trailing LF of the data is removed, inner ones are kept")
    func trailingLF() throws {
        #expect(try decode("data: a\ndata:\ndata: b\n\n") == [ServerSentEvent(data: "a\n\nb")])
    }

    @Test("an event the body leaves unfinished is not dispatched")
    func unfinishedEvent() throws {
        #expect(try decode("data: a\n\ndata: b\n").map(\.data) == ["a"])
    }

    // MARK: - Limits

    @Test("a line longer than the limit throws responseTooLarge, even when split over chunks")
    func longLine() throws {
        let chunk = Array("data: ".utf8) + [UInt8](repeating: 0x61, count: 600)
        #expect {
            _ = try decode([chunk, [UInt8](repeating: 0x61, count: 600)], maximumEventSize: 1000)
        } throws: { error in
            guard (error as? ConnectionError)?.kind == .responseTooLarge, let limit = (error as? ConnectionError)?.limit
            else { return false }
            return limit == 1000
        }
    }

    @Test("many short data lines adding up to more than the limit throw responseTooLarge")
    func largeEventOfShortLines() throws {
        let text = String(repeating: "data: 0123456789\n", count: 100)
        #expect {
            _ = try decode([Array(text.utf8)], maximumEventSize: 1000)
        } throws: { error in
            guard case .responseTooLarge? = (error as? ConnectionError)?.kind else { return false }
            return true
        }
    }

    @Test("many events each under the limit pass, whatever their total")
    func manySmallEvents() throws {
        let text = String(repeating: "data: 0123456789\n\n", count: 1000)
        #expect(try decode([Array(text.utf8)], maximumEventSize: 100).0.count == 1000)
    }
}
