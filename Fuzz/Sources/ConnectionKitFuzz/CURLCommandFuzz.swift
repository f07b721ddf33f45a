import Foundation

@testable import ConnectionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cURL renderer on an untrusted method, body and header fields. Fields are separated by the unit
/// separator (0x1F): field 0 is the method, field 1 the body (raw bytes, so binary bodies occur), each
/// other field `name<TAB>value`; what the wire check refuses is skipped, as the request would be. What must
/// hold: the command, read back as a POSIX shell reads it, is `curl` and its arguments; a text body comes
/// back byte for byte as the argument of `--data-raw` (so no byte of it is a curl directive); a binary one
/// only as `--data-binary @body.bin`; no header argument starts with `@` (a file of headers to read).
enum CURLCommandFuzz {
    static func run(_ input: Data) {
        let fields = input.split(separator: 0x1F, omittingEmptySubsequences: false)
        let method = String(decoding: fields.first ?? Data(), as: UTF8.self)
        let body = fields.count > 1 ? Data(fields[1]) : Data()
        let headers = fields.dropFirst(2).prefix(16).map { field -> (name: String, value: String) in
            let pieces = field.split(separator: 0x09, maxSplits: 1, omittingEmptySubsequences: false)
            return (
                String(decoding: pieces[0], as: UTF8.self),
                pieces.count > 1 ? String(decoding: pieces[1], as: UTF8.self) : ""
            )
        }
        guard WireValidation.violation(method: method, headerFields: headers, hook: "fuzz") == nil,
            let url = URL(string: "http://127.0.0.1:8080/fuzz?q=1")
        else { return }
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.isEmpty ? nil : body
        let command = CURLCommand.render(request, secretHeaderFields: [], secretQueryItems: [])
        check(shellWords(of: command), body: body)
    }

    private static func check(_ words: [String], body: Data) {
        guard words.first == "curl", words.last == "http://127.0.0.1:8080/fuzz?q=1" else {
            fatalError("the command does not read back as curl and the URL: \(words)")
        }
        let text = String(data: body, encoding: .utf8).flatMap { $0.contains("\0") ? nil : $0 }
        var sawBody = false
        var index = 1
        while index < words.count - 1 {
            let option = words[index]
            let argument = index + 1 < words.count - 1 ? words[index + 1] : nil
            switch option {
            case "--head", "--globoff":
                index += 1
                continue
            case "--request", "--header":
                guard let argument, !argument.hasPrefix("@") else { fatalError("an argument curl reads as a file") }
            case "--data-raw":
                guard let text, let argument, Array(argument.utf8) == Array(text.utf8) else {
                    fatalError("--data-raw does not carry the body as is")
                }
                sawBody = true
            case "--data-binary":
                guard text == nil, argument == "@body.bin" else { fatalError("--data-binary on a text body") }
                sawBody = true
            default:
                fatalError("an unexpected word in the command: \(option)")
            }
            index += 2
        }
        if sawBody == body.isEmpty { fatalError("the body is missing from the command, or one was invented") }
    }

    /// The words of `command` as a POSIX shell reads them, scalar by scalar (a quote followed by a
    /// combining mark is still a quote): lines starting with `#` are comments, backslash-newline joins
    /// lines, single quotes keep everything up to the next one, a backslash outside them keeps the next
    /// scalar.
    static func shellWords(of command: String) -> [String] {
        let lines = command.split(separator: "\n", omittingEmptySubsequences: false)
        let kept = lines.drop { $0.hasPrefix("#") }.joined(separator: "\n")
        var words: [String] = []
        var current = String.UnicodeScalarView()
        var inWord = false
        var iterator = kept.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            switch scalar {
            case "'":
                inWord = true
                while let quoted = iterator.next(), quoted != "'" { current.append(quoted) }
            case "\\":
                guard let next = iterator.next() else { break }
                if next != "\n" {
                    current.append(next)
                    inWord = true
                }
            case " ", "\t", "\n":
                if inWord { words.append(String(current)) }
                current = String.UnicodeScalarView()
                inWord = false
            default:
                current.append(scalar)
                inWord = true
            }
        }
        if inWord { words.append(String(current)) }
        return words
    }
}
