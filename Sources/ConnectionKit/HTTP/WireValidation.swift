import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one check of everything a request turns into bytes on the wire: the method, every header field
/// name and value, and a multipart body's boundary and part headers.
///
/// A value that would end a line early (CR, LF), end a C string early (NUL) or is not a token where
/// HTTP wants one would let a hook's value, often built from user data, smuggle a second request or
/// inject a header. URLSession on Linux sends such a method as is and silently drops such a header
/// value (the request then leaves without, say, its `Authorization`), so ConnectionKit refuses both,
/// before anything is sent, with `invalidRequest` naming the hook and the field. A reason never
/// contains a header value, which may be a secret.
///
/// ``violation(method:headerFields:form:hook:)`` is the entry point: plain values in, a ``Violation`` out.
/// The request calls it for each hook's values as it builds them (a bad value must be seen before
/// `URLRequest` drops it), for the finished request before each attempt and redirect hop, and the
/// multipart assembly scans file parts for the boundary as it copies them (``BoundaryScanner``).
enum WireValidation {
    /// Why a value cannot go on the wire.
    struct Violation: Error, Equatable, Sendable {
        /// The hook that produced the value, e.g. `requestHeaderFields`.
        var hook: String
        /// What holds the value, e.g. "the header `X-Note`".
        var field: String
        /// What is wrong with it.
        var problem: String

        /// The `invalidRequest` reason.
        var reason: String { "`\(hook)`: \(field) \(problem); it was not sent." }

        var connectionError: ConnectionError { ConnectionError(.invalidRequest(reason: reason)) }
    }

    /// The first reason `method` (when given), `form` (its boundary, the headers of each part and the
    /// parts held in memory) and `headerFields` (in name order), all produced by `hook`, cannot be sent;
    /// `nil` when they can. Pure: plain values in, a value out, so that a fuzz target can call it.
    static func violation(
        method: String?, headerFields: [(name: String, value: String)], form: MultipartForm? = nil, hook: String
    ) -> Violation? {
        if let method {
            if method.isEmpty {
                return Violation(hook: hook, field: "the method", problem: "is empty")
            }
            guard isToken(method) else {
                return Violation(hook: hook, field: "the method \(shown(method))", problem: notATokenProblem)
            }
        }
        if let form, let violation = violation(in: form, hook: hook) { return violation }
        for (name, value) in headerFields.sorted(by: { $0.name < $1.name }) {
            guard isToken(name) else {
                return Violation(hook: hook, field: "the header name \(shown(name))", problem: notATokenProblem)
            }
            if isFramingHeader(name) {
                return Violation(hook: hook, field: "the header \(shown(name))", problem: framingProblem)
            }
            if let problem = fieldValueProblem(value) {
                return Violation(hook: hook, field: "the value of the header \(shown(name))", problem: problem)
            }
        }
        return headFieldsViolation(headerFields, hook: hook)
    }

    /// The violation of header fields that together exceed ``maximumHeaderBytes``, else `nil`.
    private static func headFieldsViolation(_ headerFields: [(name: String, value: String)], hook: String)
        -> Violation?
    {
        // Each field costs its name, its value and `: ` plus CRLF on the wire.
        let total = headerFields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        guard total > maximumHeaderBytes else { return nil }
        return Violation(
            hook: hook, field: "the header fields",
            problem: "take \(total) bytes, more than the \(maximumHeaderBytes) bytes ConnectionKit sends in a request "
                + "head (servers refuse far less: nginx 8 KiB a line, most 64 KiB in all)")
    }

    /// Throws the ``violation(method:headerFields:form:hook:)`` as `ConnectionError.invalidRequest`.
    static func check(
        method: String?, headerFields: [(name: String, value: String)], form: MultipartForm? = nil, hook: String
    ) throws {
        if let violation = violation(method: method, headerFields: headerFields, form: form, hook: hook) {
            throw violation.connectionError
        }
    }

    /// ``check(method:headerFields:form:hook:)`` for the method and every header of a built request, and
    /// ``bodyStreamViolation(hook:)`` when it carries an `httpBodyStream`.
    static func check(_ request: URLRequest, hook: String) throws {
        if request.httpBodyStream != nil { throw bodyStreamViolation(hook: hook).connectionError }
        let fields = (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        try check(method: request.httpMethod ?? "GET", headerFields: fields, hook: hook)
    }

    /// A body given as `URLRequest.httpBodyStream` is refused on every transport, before anything is sent:
    /// libcurl would send it empty (`Content-Length: 0`) without an error, and a stream cannot be read again
    /// for a retry or a redirect.
    static func bodyStreamViolation(hook: String) -> Violation {
        Violation(
            hook: hook, field: "the body",
            problem: "is an httpBodyStream, which ConnectionKit does not send (the libcurl transport would send it "
                + "empty, and a stream cannot be sent again on a retry); give it as bodyData, or a file as a "
                + "file part of requestBody .multipart, which is sent from disk")
    }

    /// The boundary (RFC 2046), each part's name, filename and content type, and the parts held in memory.
    private static func violation(in form: MultipartForm, hook: String) -> Violation? {
        let boundary = form.boundary
        guard isBoundary(boundary) else {
            return Violation(
                hook: hook, field: "the multipart boundary \(shown(boundary))",
                problem:
                    "is not an RFC 2046 boundary (1 to 70 of letters, digits and '()+_,-./:=? or space, not ending in a space)"
            )
        }
        let delimiter = Data(delimiter(for: boundary).utf8)
        for (index, part) in form.parts.enumerated() {
            let label = partLabel(index: index, name: part.name)
            if let problem = fieldValueProblem(part.name) {
                return Violation(hook: hook, field: "the name of multipart \(label)", problem: problem)
            }
            if let problem = part.filename.flatMap(fieldValueProblem) {
                return Violation(hook: hook, field: "the filename of multipart \(label)", problem: problem)
            }
            if let problem = part.contentType.flatMap(fieldValueProblem) {
                return Violation(hook: hook, field: "the Content-Type of multipart \(label)", problem: problem)
            }
            if case .data(let data) = part.content, data.range(of: delimiter) != nil {
                return boundaryCollision(boundary, label: label, hook: hook)
            }
        }
        return nil
    }

    /// How a message names a part: its position and its (escaped) field name.
    static func partLabel(index: Int, name: String) -> String {
        "part \(index + 1) (\(shown(name)))"
    }

    /// The violation of a boundary found inside the content of the part `label`.
    static func boundaryCollision(_ boundary: String, label: String, hook: String) -> Violation {
        Violation(
            hook: hook, field: "the multipart boundary \(shown(boundary))",
            problem: "occurs inside the content of \(label), where it would end the part early (forging another)")
    }

    /// `--` and the boundary: what no part may contain, since a line starting with it ends the part.
    static func delimiter(for boundary: String) -> String { "--" + boundary }

    private static let lineBreakProblem = "contains CR, LF or NUL, which would break the line it is sent on"
    private static let controlProblem =
        "contains a control character (one of U+0001-U+001F other than tab, or DEL), which RFC 9110 does not allow "
        + "in a field value and servers and proxies read differently"
    private static let framingProblem =
        "frames the message or names its connection, which only ConnectionKit and its transport write (from the "
        + "URL and the body); a value set here could make a server read a second, smuggled request"

    /// The header fields a hook may not set, lower-cased: `Content-Length` and `Transfer-Encoding` frame
    /// the body, `Host` names the target (from the URL), and the hop-by-hop fields (`Connection`,
    /// `Keep-Alive`, `Proxy-Connection`, `TE`, `Trailer`, `Upgrade`) change how the connection is read.
    static let framingHeaders: Set<String> = [
        "content-length", "transfer-encoding", "host", "connection", "keep-alive", "proxy-connection", "te",
        "trailer", "upgrade",
    ]

    /// The most bytes of header fields a request may carry (names, values, separators): 256 KiB.
    static let maximumHeaderBytes = 256 * 1024

    /// Whether `name` is one of ``framingHeaders``, whatever its case.
    static func isFramingHeader(_ name: String) -> Bool {
        framingHeaders.contains(name.lowercased())
    }
    private static let notATokenProblem = "is not an HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~ only)"

    // MARK: - Grammar

    /// RFC 9110 `tchar`: the characters of a method or a header name.
    private static let tokenCharacters = Set(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// RFC 2046 `bchars`: the characters of a multipart boundary.
    private static let boundaryCharacters = Set(
        "'()+_,-./:=? 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// Whether `text` is an RFC 9110 token: one or more `tchar`.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { tokenCharacters.contains($0) }
    }

    /// Whether `text` can be sent as a header field value: no control character but tab (no CR, LF,
    /// NUL, VT, FF, ESC, BS, DEL, …). Non-ASCII bytes are sent as they are, as RFC 9110's `obs-text` allows.
    static func isFieldValue(_ text: String) -> Bool {
        fieldValueProblem(text) == nil
    }

    /// Why `text` cannot be sent as a header field value (a line break first), or `nil` when it can.
    static func fieldValueProblem(_ text: String) -> String? {
        var control = false
        for byte in text.utf8 {
            if byte == 0x0D || byte == 0x0A || byte == 0x00 { return lineBreakProblem }
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F { control = true }
        }
        return control ? controlProblem : nil
    }

    /// Whether `text` is an RFC 2046 boundary: 1 to 70 `bchars`, the last not a space.
    static func isBoundary(_ text: String) -> Bool {
        let bytes = text.utf8
        return (1...70).contains(bytes.count) && bytes.last != 0x20
            && bytes.allSatisfy { boundaryCharacters.contains($0) }
    }

    private static let lineBreakEscapes: [Unicode.Scalar: String] = ["\r": "\\r", "\n": "\\n", "\0": "\\0"]

    /// `text` for a message: quoted, control characters escaped, cut after the first CR, LF or NUL (what
    /// follows is what would have been injected) and at 64 characters.
    static func shown(_ text: String) -> String {
        let total = text.unicodeScalars.count
        var escaped = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < 64 else { return "`\(escaped)…`" }
            count += 1
            if let escape = lineBreakEscapes[scalar] {
                escaped += escape
                return count < total ? "`\(escaped)…`" : "`\(escaped)`"
            }
            switch scalar {
            case "\t": escaped += "\\t"
            case "`": escaped += "\\`"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return "`\(escaped)`"
    }
}

/// Finds a multipart delimiter in content that arrives in pieces (a file part copied 64 KiB at a time),
/// including one that straddles two pieces.
struct BoundaryScanner {
    private let delimiter: Data
    /// The end of the content so far, one byte shorter than the delimiter: where a straddling match starts.
    private var tail = Data()

    init(boundary: String) {
        delimiter = Data(WireValidation.delimiter(for: boundary).utf8)
    }

    /// Adds the next piece; returns whether the delimiter has now occurred.
    mutating func scan(_ piece: Data) -> Bool {
        let overlap = delimiter.count - 1
        if !tail.isEmpty, (tail + piece.prefix(overlap)).range(of: delimiter) != nil { return true }
        if piece.range(of: delimiter) != nil { return true }
        tail = Data((piece.count >= overlap ? piece : tail + piece).suffix(overlap))
        return false
    }
}
