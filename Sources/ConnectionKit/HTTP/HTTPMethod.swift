import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP request method such as `GET` or `POST`.
///
/// A string wrapper rather than an enum so that any method a server understands can be sent:
/// `HTTPMethod("PROPFIND")` works as well as `.get`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method's name as sent on the wire, upper-cased.
    public let rawValue: String

    /// Creates a method from its name; the name is upper-cased.
    public init(rawValue: String) {
        self.rawValue = rawValue.uppercased()
    }

    /// Creates a method from its name; the name is upper-cased.
    public init(_ rawValue: String) {
        self.init(rawValue: rawValue)
    }

    /// Creates a method from a string literal, e.g. `let method: HTTPMethod = "PURGE"`.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The method's name, e.g. `GET`.
    public var description: String { rawValue }

    /// `GET`: the default method of every request.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: the response has headers only.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`.
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2):
    /// `GET`, `HEAD`, `OPTIONS`, `PUT`, `DELETE` and `TRACE`. Retries use this by default.
    public var isIdempotent: Bool {
        switch rawValue {
        case "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE": return true
        default: return false
        }
    }
}

extension HTTPMethod {
    /// The method `request` is sent with: `GET` when it names none.
    init(of request: URLRequest) {
        self.init(rawValue: request.httpMethod ?? "GET")
    }

    /// Whether a request with this method may carry a body: any but `GET` and `HEAD` (URLSession refuses
    /// those with a body, URLError -1103).
    var allowsBody: Bool { self != .get && self != .head }
}
