extension Cookie {
    /// The `SameSite` attribute of a cookie (RFC 6265bis §4.1.2.7), stored as the server sent it.
    public enum SameSite: String, Sendable, Hashable, Codable {
        /// No attribute, or a value that is none of the three.
        case unspecified
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None`.
        case none

        /// The value of a `SameSite` attribute, in any case.
        init(attribute: String) {
            switch attribute.lowercased() {
            case "strict": self = .strict
            case "lax": self = .lax
            case "none": self = .none
            default: self = .unspecified
            }
        }
    }
}
