import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The moments of a run at which the lifecycle calls the built-in stages (``PipelineStage``), each in the
/// list's order unless said otherwise.
extension RunPipeline {
    /// An attempt begins.
    func attemptStarted() {
        for stage in stages { stage.attemptStarted() }
    }

    /// Each stage prepares the attempt's request, until one answers it: that answer, or `nil` for the network.
    func prepareAttempt(_ request: inout URLRequest, owner: AnyConnectionRequest) throws -> StageAnswer? {
        for stage in stages {
            if let answer = try stage.prepareAttempt(&request, owner: owner) { return answer }
        }
        return nil
    }

    /// The request a redirect's next hop starts from.
    func redirecting(from previous: URLRequest) -> URLRequest {
        stages.reduce(previous) { request, stage in stage.redirecting(from: request) }
    }

    /// Each stage prepares a redirect's next hop.
    func prepareHop(_ request: inout URLRequest, owner: AnyConnectionRequest) {
        for stage in stages { stage.prepareHop(&request, owner: owner) }
    }

    /// A response head arrived. A middleware's answer comes from above every stage and reaches none.
    func received(_ response: TransportResponse, owner: AnyConnectionRequest) {
        guard response.source != .middleware else { return }
        for stage in stages { stage.received(response, owner: owner) }
    }

    /// The attempt's last response as the stages leave it, the one nearest the transport first; `.takenOver`
    /// as soon as one takes the attempt over.
    func finalResponse(
        _ response: TransportResponse, sink: (any BodySink)?, owner: AnyConnectionRequest, run: RunNumber
    ) -> FinalResponse {
        var current = FinalResponse.response(response, sink: sink)
        for stage in stages.reversed() {
            guard case .response(let response, let sink) = current else { break }
            current = stage.finalResponse(response, sink: sink, owner: owner, run: run)
        }
        return current
    }

    /// The run's response passed validation and parsing.
    func accepted(_ response: TransportResponse, body: CompletedBody, owner: AnyConnectionRequest) {
        for stage in stages { stage.accepted(response, body: body, owner: owner) }
    }

    /// Whether a stage took over after the attempt failed.
    func takeOver(after error: ConnectionError, run: RunNumber, attempt: Int, owner: AnyConnectionRequest) -> Bool {
        stages.contains { $0.takeOver(after: error, run: run, attempt: attempt, owner: owner) }
    }

    /// Whether a stage may still answer the run after a failure.
    var mayAnswerAfterFailure: Bool {
        stages.contains { $0.mayAnswerAfterFailure }
    }

    /// Whether a stage answered the run that is about to fail.
    func answerAfterFailure(
        _ error: ConnectionError, response: ConnectionResponse?, owner: AnyConnectionRequest, run: RunNumber
    ) -> Bool {
        stages.contains { $0.answerAfterFailure(error, response: response, owner: owner, run: run) }
    }
}
