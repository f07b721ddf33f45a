/// One header field line of a response, its name spelt as the server (or the transport) wrote it: an
/// element of ``ConnectionResponse/headerFieldLines``.
public struct ResponseHeaderField: Sendable, Hashable {
    /// The field's name, e.g. `Set-Cookie`.
    public var name: String
    /// The field's value, without the blanks around it.
    public var value: String

    /// A field line of `name` and `value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
