import Foundation

/// The start of a final response's body, kept for the debug output's response block.
struct ResponseBodyPreview: Sendable {
    /// At most ``ConnectionDebug/bodyPreviewLimit`` bytes.
    var bytes: Data
    /// The body's full size.
    var totalCount: Int64
    /// Where the body was saved, when it went to a file.
    var savedTo: URL?
}
