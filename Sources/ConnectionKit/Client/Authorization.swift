import Foundation

/// Credentials a request sends in its `Authorization` header, applied at send time from the
/// ``AnyConnectionRequest/authorization`` hook (so a refreshed credential is picked up by the
/// next attempt, and nothing secret is stored with the request).
/// - SeeAlso: <doc:client-and-authorization>
public enum Authorization: Sendable, Hashable {
    /// HTTP Basic: `Authorization: Basic base64(username:password)`.
    case basic(username: String, password: String)
    /// A bearer token: `Authorization: Bearer <token>`.
    case bearer(String)
    /// A token sent as the Basic user name with an empty password, as ASIHTTPRequest's
    /// `addBasicAuthenticationHeaderWithUsername:token andPassword:nil` did:
    /// `Authorization: Basic base64(token:)`.
    case tokenAsUsername(String)

    /// The value of the `Authorization` header.
    public var headerValue: String {
        switch self {
        case .basic(let username, let password):
            return "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        case .bearer(let token):
            return "Bearer \(token)"
        case .tokenAsUsername(let token):
            return "Basic " + Data("\(token):".utf8).base64EncodedString()
        }
    }
}
