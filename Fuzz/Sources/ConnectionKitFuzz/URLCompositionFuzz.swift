import Foundation

@testable import ConnectionKit

/// A request's URL from `baseURL` (field 0; a fixed one when it is not an absolute URL), `path`
/// (field 1) and `queryItems` (the other fields, `name=value` or `name`): whatever the path and the
/// query items hold, the URL keeps the base's scheme, host and port (user data cannot change the origin).
enum URLCompositionFuzz {
    static let fallback = URL(string: "https://api.example.com/v1")!

    static func run(_ input: Data) {
        let fields = FuzzInput(input)
        var base = fallback
        if let text = fields[0], let url = URL(string: text), url.scheme != nil, url.host != nil {
            base = url
        }
        let items = fields.fields(from: 2).map { field -> URLQueryItem in
            guard let equals = field.firstIndex(of: "=") else { return URLQueryItem(name: field, value: nil) }
            return URLQueryItem(
                name: String(field[..<equals]), value: String(field[field.index(after: equals)...]))
        }
        _ = URLComposer.encodePath(fields[1] ?? "")
        guard let composed = URLComposer.compose(baseURL: base, path: fields[1] ?? "", queryItems: items) else {
            return
        }
        guard composed.scheme == base.scheme, composed.host == base.host, composed.port == base.port else {
            fatalError("composing changed the origin of \(base.absoluteString) to \(composed.absoluteString)")
        }
    }
}
