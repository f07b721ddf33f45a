import Foundation

/// The streamed body of a run's current attempt (``RequestBody/stream(_:)``), read by each transfer that sends it.
struct RunStreamedBody: Sendable {
    /// The run it belongs to: a body of an earlier run is never sent.
    let run: RunNumber
    var body: StreamedBody
    /// A single-use body was handed to a transfer of this run: any body the run needs again is refused, even
    /// one the `requestBody` hook made anew around the same sequence (which would send only its rest).
    var sentSingleUse = false
}
