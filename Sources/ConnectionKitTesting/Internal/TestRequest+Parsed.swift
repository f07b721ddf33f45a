import Foundation
import HTTPServerCore

extension TestRequest {
    /// The request as the shared reader parsed it, with the digest of a body that was not stored.
    init(_ parsed: ParsedRequest, bodyDigest: TestBodyDigest?) {
        self.init(
            method: parsed.method, path: parsed.path, query: parsed.query,
            headers: parsed.headers.map { TestHeader($0.name, $0.value) }, body: parsed.body, bodyDigest: bodyDigest,
            receivedAt: parsed.receivedAt, connectionID: parsed.connectionID)
    }
}
