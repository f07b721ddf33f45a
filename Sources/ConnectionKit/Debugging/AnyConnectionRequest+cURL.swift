import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AnyConnectionRequest {
    /// The request as a curl command that a POSIX shell runs as is: the request last sent (the
    /// current attempt or redirect hop), or, before any was sent, the one ``makeURLRequest()``
    /// builds now (with ``authorization`` applied). Method, headers and a text body (as
    /// `--data-raw`, which reads no byte of it as a curl directive) are single-quoted for the shell; a class's ``proxy`` becomes `--proxy`, its
    /// credentials redacted. Secret headers and query items (see
    /// ``secretHeaderFields``) read `<redacted>`, so a command with secrets needs them put back by
    /// hand. When the request cannot be built, a shell comment saying why.
    public var cURLDescription: String {
        let sent = storage.withLock { $0.sentRequest }
        let request: URLRequest
        if let sent {
            request = sent
        } else {
            do {
                var built = try makeURLRequest()
                try checkBeforeSending(&built)
                try AuthorizationStage.authorize(&built, owner: self)
                request = built
                // What would be refused before sending is not rendered either (a header line starting
                // with `@` would make curl read a file).
                try WireValidation.check(request, hook: "makeURLRequest()")
            } catch {
                let reason = contextualize(error, as: { .invalidRequest(reason: "\($0)") })
                return "# \(reason.description)"
            }
        }
        return CURLCommand.render(
            request, secretHeaderFields: secretHeaderFields, secretQueryItems: secretQueryItems, proxy: proxy)
    }
}
