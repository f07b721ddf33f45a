import ConnectionKit
import Foundation
import Testing

private struct Item: Decodable, Sendable, Equatable {
    let n: Int
}

@Suite("JSONLinesDecoder and LineDecoder cut lines as they arrive", .offThePool, .timeLimit(.minutes(1)))
struct JSONLinesDecoderTests {
    @Test("each line decodes as one value; lines split across chunks, CRLF and a last line without LF work")
    func decodesLines() throws {
        var decoder = JSONLinesDecoder<Item>()
        var values = try decoder.decode(Data("{\"n\":1}\n{\"n\"".utf8))
        values += try decoder.decode(Data(":2}\r\n{\"n\":3}".utf8))
        values += try decoder.finish()
        #expect(values == [Item(n: 1), Item(n: 2), Item(n: 3)])
    }

    @Test("empty and blank lines are ignored")
    func emptyLines() throws {
        var decoder = JSONLinesDecoder<Item>()
        let values = try decoder.decode(Data("\n{\"n\":1}\n\n  \n\r\n{\"n\":2}\n".utf8))
        #expect(values == [Item(n: 1), Item(n: 2)])
    }

    @Test("a line that does not decode throws JSONLinesError naming its line number (empty lines counted)")
    func namesLine() throws {
        var decoder = JSONLinesDecoder<Item>()
        #expect {
            _ = try decoder.decode(Data("{\"n\":1}\n\n{\"n\":\"two\"}\n".utf8))
        } throws: { error in
            (error as? JSONLinesError)?.lineNumber == 3
        }
    }

    @Test("with skipsInvalidLines, a bad line is dropped and the rest decodes")
    func skips() throws {
        var decoder = JSONLinesDecoder<Item>(skipsInvalidLines: true)
        let values = try decoder.decode(Data("{\"n\":1}\nnot json\n{\"n\":3}\n".utf8))
        #expect(values == [Item(n: 1), Item(n: 3)])
    }

    @Test("a line longer than the limit throws responseTooLarge")
    func longLine() throws {
        var decoder = LineDecoder(maximumLineSize: 10)
        #expect(try decoder.decode(Data("0123456789\n".utf8)) == ["0123456789"])
        #expect {
            _ = try decoder.decode(Data("01234".utf8))
            _ = try decoder.decode(Data("567890".utf8))
        } throws: { error in
            guard (error as? ConnectionError)?.kind == .responseTooLarge, (error as? ConnectionError)?.limit == 10
            else { return false }
            return true
        }
    }

    @Test("LineDecoder keeps empty lines and replaces invalid UTF-8")
    func plainLines() throws {
        var decoder = LineDecoder()
        var lines = try decoder.decode(Data([0x61, 0x0A, 0x0A, 0xFF, 0x0D, 0x0A, 0x62]))
        lines += try decoder.finish()
        #expect(lines == ["a", "", "\u{FFFD}", "b"])
    }
}
