import Foundation

@testable import ConnectionKit

/// A multipart form assembled from untrusted field names, file names, content types and values:
/// field 0 is the boundary (the default one when empty); each other field is a part,
/// `name<TAB>value<TAB>filename<TAB>content type`. The body opens and closes with the boundary.
enum MultipartFuzz {
    static func run(_ input: Data) {
        let fields = FuzzInput(input)
        var form = (fields[0]?.isEmpty ?? true) ? MultipartForm() : MultipartForm(boundary: fields[0] ?? "")
        for field in fields.fields(from: 1).prefix(16) {
            let pieces = field.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            form.parts.append(
                MultipartForm.Part(
                    name: pieces[0], filename: pieces.count > 2 ? pieces[2] : nil,
                    contentType: pieces.count > 3 ? pieces[3] : nil,
                    content: .data(Data((pieces.count > 1 ? pieces[1] : "").utf8))))
        }
        _ = form.contentType
        guard let body = try? form.smallBody() else { return }
        let closing = Data("--\(form.boundary)--\r\n".utf8)
        guard body.count >= closing.count, body.suffix(closing.count) == closing else {
            fatalError("the multipart body does not end with its closing boundary")
        }
        if !form.parts.isEmpty, !body.starts(with: Data("--\(form.boundary)\r\n".utf8)) {
            fatalError("the multipart body does not start with its boundary")
        }
    }
}
