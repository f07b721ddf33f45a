import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A built-in stage of the pipeline: one feature's part in a run (authorization, the cookie jar, the HTTP
/// cache), called by the lifecycle at each moment of the run through ``RunPipeline``, never by name.
///
/// One instance serves one run (``RunPipeline/resolve(for:on:)`` makes them when the run starts) and keeps
/// that run's state itself, under its own lock: the request's state holds none of a feature's. A stage is
/// called outside the request's lock, on the thread where the run is processed.
///
/// The contract each moment keeps, in the list's order (authorization, cookies, cache, then the transport):
/// - ``attemptStarted()``: an attempt begins; forget what the last one kept.
/// - ``prepareAttempt(_:owner:)``: the attempt's request after the middleware and ConnectionKit's checks,
///   once per attempt; a stage may change it, or answer it without the network (the stages after it and the
///   transport never see that attempt).
/// - ``redirecting(from:)`` and ``prepareHop(_:owner:)``: a redirect's next hop is built from what the last
///   hop sent as ``redirecting(from:)`` returns it, then each stage prepares the hop. Stages see every hop; only
///   the attempt's first request was seen by ``prepareAttempt(_:owner:)``.
/// - ``received(_:owner:)``: each response head (every hop, the network's or a stage's answer; a
///   middleware's answer is above every stage and reaches none).
/// - ``finalResponse(_:sink:owner:run:)``: the attempt's last response, last stage first; a stage may put
///   another response in its place, or take the attempt over.
/// - ``accepted(_:body:owner:)``: the response passed validation and parsing.
/// - ``takeOver(after:run:attempt:owner:)``: the attempt failed; a stage may take over before the retry
///   decision (a refresh, then the next attempt).
/// - ``answerAfterFailure(_:response:owner:run:)``: the run is about to fail; a stage may answer it instead.
protocol PipelineStage: AnyObject, Sendable {
    /// An attempt of the run begins: what the stage kept of the last one no longer counts.
    func attemptStarted()

    /// Prepares the attempt's first request, or answers it without the network.
    func prepareAttempt(_ request: inout URLRequest, owner: AnyConnectionRequest) throws -> StageAnswer?

    /// The request a redirect's next hop starts from, given the one the last hop sent.
    func redirecting(from previous: URLRequest) -> URLRequest

    /// Prepares a redirect's next hop.
    func prepareHop(_ request: inout URLRequest, owner: AnyConnectionRequest)

    /// A response head arrived (the network's, or the answer of a stage).
    func received(_ response: TransportResponse, owner: AnyConnectionRequest)

    /// The attempt's last response, with the sink that holds its body.
    func finalResponse(
        _ response: TransportResponse, sink: (any BodySink)?, owner: AnyConnectionRequest, run: RunNumber
    ) -> FinalResponse

    /// The run's response passed validation and parsing.
    func accepted(_ response: TransportResponse, body: CompletedBody, owner: AnyConnectionRequest)

    /// Whether the stage takes over after the attempt failed with `error` (it then starts the next attempt or
    /// ends the run itself).
    func takeOver(after error: ConnectionError, run: RunNumber, attempt: Int, owner: AnyConnectionRequest) -> Bool

    /// Whether ``answerAfterFailure(_:response:owner:run:)`` may still answer: the run's deadline then
    /// interrupts the transfer or the backoff in flight for it.
    var mayAnswerAfterFailure: Bool { get }

    /// Whether the stage answered the run that is about to fail with `error`.
    func answerAfterFailure(
        _ error: ConnectionError, response: ConnectionResponse?, owner: AnyConnectionRequest, run: RunNumber
    ) -> Bool
}

/// A stage's answer instead of the network: a response head and its whole body.
struct StageAnswer {
    let response: TransportResponse
    let body: Data
}

/// What a stage makes of an attempt's last response.
enum FinalResponse {
    /// The response (perhaps another one the stage put in its place) goes on to validation and parsing.
    case response(TransportResponse, sink: (any BodySink)?)
    /// The stage took the attempt over (it sends again, or ends the run): nothing more to do.
    case takenOver
}

extension PipelineStage {
    func attemptStarted() {}
    func prepareAttempt(_ request: inout URLRequest, owner: AnyConnectionRequest) throws -> StageAnswer? { nil }
    func redirecting(from previous: URLRequest) -> URLRequest { previous }
    func prepareHop(_ request: inout URLRequest, owner: AnyConnectionRequest) {}
    func received(_ response: TransportResponse, owner: AnyConnectionRequest) {}
    func finalResponse(
        _ response: TransportResponse, sink: (any BodySink)?, owner: AnyConnectionRequest, run: RunNumber
    ) -> FinalResponse { .response(response, sink: sink) }
    func accepted(_ response: TransportResponse, body: CompletedBody, owner: AnyConnectionRequest) {}
    func takeOver(after error: ConnectionError, run: RunNumber, attempt: Int, owner: AnyConnectionRequest) -> Bool {
        false
    }
    var mayAnswerAfterFailure: Bool { false }
    func answerAfterFailure(
        _ error: ConnectionError, response: ConnectionResponse?, owner: AnyConnectionRequest, run: RunNumber
    ) -> Bool { false }
}
