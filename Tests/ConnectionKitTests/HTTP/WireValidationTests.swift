import Foundation
import Testing

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The validator's entry point on plain values, and the pieces the request path relies on: the boundary
/// scanner, the redaction of `;` query items and of URLs inside transport errors.
@Suite(.offThePool, .timeLimit(.minutes(1))) struct WireValidationTests {
    private func violation(
        method: String? = nil, headers: [(name: String, value: String)] = [], form: MultipartForm? = nil
    ) -> WireValidation.Violation? {
        WireValidation.violation(method: method, headerFields: headers, form: form, hook: "hook")
    }

    @Test func everyTcharIsAcceptedAndEveryOtherASCIIByteRefusedInAMethodAndAName() {
        let tchars = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".unicodeScalars)
        for value in UInt32(0)...0x7F {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "A" + String(scalar)
            let accepted = tchars.contains(scalar)
            #expect((violation(method: text) == nil) == accepted, "method \(value)")
            #expect((violation(headers: [(text, "v")]) == nil) == accepted, "name \(value)")
        }
        #expect(violation(method: "") != nil)
        #expect(violation(headers: [("", "v")]) != nil)
    }

    /// RFC 9110 §5.5: a field value is visible characters, space, tab and `obs-text`; VT, FF, ESC, BS, DEL
    /// and the other controls are read differently by servers and proxies.
    @Test func onlyControlCharactersButTabAreRefusedInAValue() {
        for value in UInt32(0)...0xFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let refused = (value < 0x20 && value != 0x09) || value == 0x7F
            #expect((violation(headers: [("X-Value", "a\(scalar)b")]) != nil) == refused, "byte \(value)")
        }
    }

    @Test func aReasonNamesTheHookAndTheHeaderButNeverTheValue() throws {
        let found = try #require(violation(headers: [("X-Key", "secret-value\r\n")]))
        #expect(found.reason.contains("`hook`"))
        #expect(found.reason.contains("X-Key"))
        #expect(!found.reason.contains("secret-value"))
        guard let reason = found.connectionError.reason else {
            Issue.record("not invalidRequest")
            return
        }
        #expect(reason == found.reason)
    }

    @Test func whatFollowsALineBreakInANameIsNotEchoed() throws {
        let found = try #require(violation(headers: [("X-A\r\nAuthorization: Bearer s3cr3t", "v")]))
        #expect(found.reason.contains("`X-A\\r…`"), "\(found.reason)")
        #expect(!found.reason.contains("s3cr3t"))
        let method = try #require(violation(method: "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\nGET"))
        #expect(method.reason.contains("`GET /smuggled HTTP/1.1\\r…`"), "\(method.reason)")
        let long = try #require(violation(method: String(repeating: "(", count: 100)))
        #expect(long.reason.contains("`" + String(repeating: "(", count: 64) + "…`"), "\(long.reason)")
    }

    @Test func theBoundaryGrammarIsRFC2046() {
        #expect(WireValidation.isBoundary("a"))
        #expect(WireValidation.isBoundary(String(repeating: "b", count: 70)))
        #expect(!WireValidation.isBoundary(String(repeating: "b", count: 71)))
        #expect(!WireValidation.isBoundary(""))
        #expect(WireValidation.isBoundary("with space"))
        #expect(!WireValidation.isBoundary("trailing "))
        #expect(WireValidation.isBoundary("'()+_,-./:=?"))
        for bad in ["\"", "@", ";", "<", "[", "\\", "\t", "é", "\r", "\n", "\0", "*", "!"] {
            #expect(!WireValidation.isBoundary("a\(bad)b"), "\(bad)")
        }
    }

    @Test func aBoundaryInAnInMemoryPartIsAViolationAndElsewhereIsNot() {
        var form = MultipartForm(boundary: "sep")
        form.addField(name: "ok", value: "sep without dashes, -sep, and -- sep")
        #expect(violation(form: form) == nil)
        form.addField(name: "bad", value: "x--sepx")
        #expect(violation(form: form)?.reason.contains("part 2 (`bad`)") == true)
    }

    @Test func theScannerFindsADelimiterAtEverySplitOfThePieces() {
        let content = Data("0123456789--boundary-xyz0123456789".utf8)
        for first in 0...content.count {
            for second in first...content.count {
                var scanner = BoundaryScanner(boundary: "boundary-xyz")
                let pieces = [content[..<first], content[first..<second], content[second...]].map { Data($0) }
                let found = pieces.contains { scanner.scan($0) }
                #expect(found, "split at \(first), \(second)")
            }
        }
        var scanner = BoundaryScanner(boundary: "boundary-xyz")
        let partial = scanner.scan(Data("--boundary-xy".utf8))
        let broken = scanner.scan(Data("Z--boundary".utf8))
        #expect(!partial && !broken, "a delimiter interrupted by another byte is no delimiter")
    }

    @Test func aBoundaryThatIsNotATokenIsQuotedInTheContentType() {
        #expect(MultipartForm(boundary: "plain-1").contentType == "multipart/form-data; boundary=plain-1")
        #expect(MultipartForm(boundary: "a b").contentType == "multipart/form-data; boundary=\"a b\"")
    }

    // MARK: - Redaction

    @Test func queryItemsAfterSemicolonsAndAmpersandsAreRedactedAndTheSeparatorsKept() throws {
        let url = try #require(URL(string: "https://h/p?a=1;token=x1;b=2&TOKEN=x2&token#frag"))
        let redacted = Redaction.redactedURL(url, secretQueryItems: ["token"])
        #expect(redacted == "https://h/p?a=1;token=<redacted>;b=2&TOKEN=<redacted>&token=<redacted>#frag")
    }

    @Test func aURLErrorsURLsAreRedactedEvenWhenNested() throws {
        // The string key's name, as URLSession sets it (the constant is deprecated).
        let failingURLStringKey = "NSErrorFailingURLStringKey"
        let url = try #require(URL(string: "http://u:pass-word@h:1/p?token=tok-value"))
        let inner = NSError(
            domain: NSURLErrorDomain, code: -1,
            userInfo: [failingURLStringKey: url.absoluteString, "detail": "at \(url.absoluteString)"])
        let error = URLError(
            .cannotConnectToHost,
            userInfo: [
                NSURLErrorFailingURLErrorKey: url, failingURLStringKey: url.absoluteString,
                NSUnderlyingErrorKey: inner, NSLocalizedDescriptionKey: "failed: \(url.absoluteString)",
            ])
        let scrubbed = Redaction.scrubbed(error, secretQueryItems: ["token"])
        let text = String(describing: scrubbed.userInfo)
        #expect(!text.contains("pass-word") && !text.contains("tok-value"), "\(text)")
        #expect(scrubbed.code == .cannotConnectToHost)
        #expect(scrubbed.failingURL?.host == "h")
        #expect(scrubbed.localizedDescription.hasPrefix("failed: http://u:<redacted>@h:1/p?token=<redacted>"))
        let again = Redaction.scrubbed(scrubbed, secretQueryItems: ["token"])
        #expect(again.failingURL == scrubbed.failingURL, "scrubbing twice changes nothing")
    }
}
