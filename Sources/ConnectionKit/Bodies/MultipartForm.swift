import Foundation

/// A `multipart/form-data` body: text fields and file parts, sent in the order added.
///
/// ```swift
/// var form = MultipartForm()
/// form.addField(name: "title", value: "Holiday")
/// form.addFile(name: "photo", fileURL: photoURL, contentType: "image/jpeg")
/// ```
///
/// Returned as ``RequestBody/multipart(_:)``, a form of up to 4 MiB in all is sent from memory; a larger one is
/// written to a temporary file (files copied in 64 KiB pieces) and uploaded from there with upload progress, and
/// the temporary file is deleted when the run ends. Memory use does not grow with the size of the files.
public struct MultipartForm: Sendable {
    /// One part of the form.
    public struct Part: Sendable {
        /// Where a part's content comes from.
        public enum Content: Sendable {
            /// Bytes in memory.
            case data(Data)
            /// A file, read in pieces when the body is assembled.
            case file(URL)
        }

        /// The form field name. A `"` is sent as `%22`; CR, LF or NUL fail the request with `invalidRequest`.
        public var name: String
        /// The file name sent in `Content-Disposition`; `nil` for a text field. A `"` is sent as `%22`;
        /// CR, LF or NUL fail the request with `invalidRequest`.
        public var filename: String?
        /// The part's `Content-Type`; `nil` sends none (a text field). CR, LF or NUL fail the request with
        /// `invalidRequest`.
        public var contentType: String?
        /// The content.
        public var content: Content

        /// Creates a part.
        public init(name: String, filename: String? = nil, contentType: String? = nil, content: Content) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.content = content
        }
    }

    /// The boundary between parts. Default: `ConnectionKit-` followed by a random UUID.
    ///
    /// A custom one must be an RFC 2046 boundary (1 to 70 letters, digits, `'()+_,-./:=?` or spaces, not
    /// ending in a space) and must not occur (after `--`) inside any part's content: sending such a form
    /// fails with `invalidRequest` before anything is sent (file parts are checked as they are copied).
    /// The default's 122 random bits make a collision practically impossible, but it is checked the same way.
    public var boundary: String

    /// The parts, in the order they are sent.
    public var parts: [Part] = []

    /// Creates an empty form with a random boundary (or the one given).
    public init(boundary: String = "ConnectionKit-\(UUID().uuidString)") {
        self.boundary = boundary
    }

    /// `multipart/form-data; boundary=…`, the boundary quoted when it holds characters a bare parameter
    /// value cannot (a space, `(`, `)`, `,`, `/`, `:`, `=`, `?`).
    public var contentType: String {
        let parameter = WireValidation.isToken(boundary) ? boundary : "\"\(boundary)\""
        return "multipart/form-data; boundary=\(parameter)"
    }

    /// Adds a text field.
    public mutating func addField(name: String, value: String) {
        parts.append(Part(name: name, content: .data(Data(value.utf8))))
    }

    /// Adds a file part read from disk when the body is assembled. `filename` defaults to the file's last path
    /// component, `contentType` to `application/octet-stream`.
    public mutating func addFile(
        name: String, fileURL: URL, filename: String? = nil, contentType: String = "application/octet-stream"
    ) {
        parts.append(
            Part(
                name: name, filename: filename ?? fileURL.lastPathComponent, contentType: contentType,
                content: .file(fileURL)))
    }

    /// Adds a file part from bytes in memory.
    public mutating func addData(
        name: String, data: Data, filename: String, contentType: String = "application/octet-stream"
    ) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
    }
}
