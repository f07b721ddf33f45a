import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The pipeline of one run, in the order it applies: the client's middleware, then the class's, each with the
/// value it kept for the run; then the built-in stages (authorization, the cookie jar, the HTTP cache); then
/// the transport. Built in one place, ``resolve(for:on:)``, once when the run starts, so that a run keeps one
/// list whatever changes meanwhile. The lifecycle calls the list, never a feature by name
/// (``RunPipeline+Stages.swift`` for the stages' moments).
struct RunPipeline: Sendable {
    /// No middleware, and only the authorization stage of a class without a refresher (which keeps nothing
    /// per run): what a plain run costs, no allocation and one check per step.
    static let empty = RunPipeline(middleware: [], values: [], stages: plainStages)
    private static let plainStages: [any PipelineStage] = [AuthorizationStage.withoutRefresher]

    let middleware: [any ConnectionMiddleware]
    /// What each middleware's `runStarted` returned, by position.
    let values: [(any Sendable)?]
    /// The built-in stages, in order: authorization, then the cookie jar and the HTTP cache when the class
    /// has them.
    let stages: [any PipelineStage]

    /// Whether the run has no middleware.
    var isEmpty: Bool { middleware.isEmpty }

    /// The list for a run of `request` on `client`: the client's middleware, then the class's, each told that
    /// the run starts; then a fresh instance of each built-in stage the class uses. Runs in the caller's task
    /// (or thread), outside every lock: it reads the hooks (user code).
    static func resolve(for request: AnyConnectionRequest, on client: ConnectionClient) -> RunPipeline {
        let classMiddleware = request.middleware
        let stages = builtInStages(for: request)
        guard !client.middleware.isEmpty || !classMiddleware.isEmpty else {
            return RunPipeline(middleware: [], values: [], stages: stages)
        }
        let all = client.middleware + classMiddleware
        return RunPipeline(middleware: all, values: all.map { $0.runStarted(request) }, stages: stages)
    }

    /// Authorization (with its refresh), the cookie jar, the HTTP cache: in that order, each only when the
    /// class uses it.
    private static func builtInStages(for request: AnyConnectionRequest) -> [any PipelineStage] {
        let refresher = request.authorizationRefresher
        let jar = request.cookieJar
        let cache = request.httpCache
        guard refresher != nil || jar != nil || cache != nil else { return plainStages }
        var stages: [any PipelineStage] = [refresher.map { AuthorizationStage(refresher: $0) } ?? .withoutRefresher]
        if let jar { stages.append(CookieStage(jar: jar)) }
        if let cache { stages.append(CacheStage(cache: cache)) }
        return stages
    }

    /// The run's stage of type `type`, if it has one.
    func stage<Stage: PipelineStage>(_ type: Stage.Type) -> Stage? {
        for stage in stages {
            if let found = stage as? Stage { return found }
        }
        return nil
    }

    /// The context the middleware at `index` is called with.
    private func context(_ index: Int, _ base: Base) -> MiddlewareContext {
        MiddlewareContext(
            request: base.request, client: base.client, runIdentifier: base.runIdentifier, attempt: base.attempt,
            runValue: values[index])
    }

    /// What every context of one step shares.
    struct Base {
        let request: AnyConnectionRequest
        let client: ConnectionClient
        let runIdentifier: UUID
        let attempt: Int
    }

    /// Runs each middleware's `prepare`, then its `answer`, in order, and stops at the first answer: returns
    /// the answer and the position of the middleware that gave it, or `nil` when the request goes on to the
    /// built-in stages. A middleware that throws, leaves the request without a URL or with fields that cannot
    /// be sent, or answers with a response that cannot be one, ends the attempt with a `middleware` error.
    func prepare(_ request: inout URLRequest, base: Base) throws(ConnectionError) -> (
        index: Int, answer: MiddlewareAnswer
    )? {
        for (index, stage) in middleware.enumerated() {
            let context = context(index, base)
            let answer: MiddlewareAnswer?
            do {
                try stage.prepare(&request, context: context)
                try Self.checkRequest(request, by: stage)
                answer = try stage.answer(for: request, context: context)
            } catch let error as PipelineRuleError {
                throw ConnectionError(.middleware(name: stage.name, underlying: nil, reason: error.reason))
            } catch {
                throw ConnectionError(.middleware(name: stage.name, underlying: error))
            }
            guard let answer else { continue }
            if let problem = Self.problem(of: answer) {
                throw ConnectionError(.middleware(name: stage.name, underlying: nil, reason: problem))
            }
            return (index, answer)
        }
        return nil
    }

    /// Tells the middleware before position `end` (every one when `end` is `nil`), last first, how the
    /// attempt ended below them.
    func received(_ outcome: MiddlewareOutcome, before end: Int?, base: Base) {
        for index in (0..<min(end ?? middleware.count, middleware.count)).reversed() {
            middleware[index].received(outcome, context: context(index, base))
        }
    }

    /// The first decision a middleware gives about retrying after `error`, in order; `nil` when none does.
    func retryDecision(for error: ConnectionError, response: ConnectionResponse?, base: Base) -> RetryDecision? {
        for (index, stage) in middleware.enumerated() {
            let context = context(index, base)
            if let decision = stage.retryDecision(
                for: error, attempt: base.attempt, response: response, context: context)
            {
                return decision
            }
        }
        return nil
    }

    // MARK: - The rules

    /// A rule of the pipeline a middleware broke.
    private struct PipelineRuleError: Error {
        let reason: String
    }

    /// A request a middleware hands on must still be one: a URL, and a method and fields that can be sent.
    private static func checkRequest(_ request: URLRequest, by stage: any ConnectionMiddleware) throws {
        guard request.url != nil else {
            throw PipelineRuleError(reason: "its prepare(_:context:) left the request without a URL")
        }
        do {
            try WireValidation.check(request, hook: "prepare(_:context:)")
        } catch {
            throw PipelineRuleError(reason: (error as? ConnectionError)?.reason ?? "its request cannot be sent")
        }
    }

    /// Why `answer` cannot stand for a response: a status outside 100...999, or a field name or value that
    /// could not come off the wire.
    static func problem(of answer: MiddlewareAnswer) -> String? {
        guard (100...999).contains(answer.statusCode) else {
            return "its answer has status \(answer.statusCode), outside 100...999"
        }
        // Only what could not come off the wire is refused: framing fields are an answer's own to give.
        for field in answer.headerFields {
            guard WireValidation.isToken(field.name) else {
                return "its answer has a field name that is not an RFC 9110 token"
            }
            guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                return "its answer's field \(field.name) has a line break or NUL in its value"
            }
        }
        return nil
    }
}
