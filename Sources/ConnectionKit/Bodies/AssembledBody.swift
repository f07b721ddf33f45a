import Foundation

/// A request body assembled in a temporary file for one run (a large multipart form), reused by the run's
/// attempts and redirects and deleted when the run ends.
struct AssembledBody: Sendable {
    /// The run it belongs to: a file of an earlier run is never sent, and is deleted by whoever finds it.
    let run: RunNumber
    let file: URL
    /// The `Content-Type` it was assembled with (its boundary is in the file).
    let contentType: String
}
