import Foundation
import Testing

@testable import ConnectionKit

/// `ConnectionError.Kind` is a value that can grow: its names are stable, it compares by name, and the
/// details its cases used to carry are read from the error.
@Suite(.offThePool, .timeLimit(.minutes(1)))
struct ErrorKindTests {
    /// Every kind with the name logs, metrics and the history record: these never change.
    static let names: [(ConnectionError.Kind, String)] = [
        (.cancelled, "cancelled"), (.timedOut, "timedOut"), (.invalidRequest, "invalidRequest"),
        (.transport, "transport"), (.unacceptableStatusCode, "unacceptableStatusCode"), (.parsing, "parsing"),
        (.fileSystem, "fileSystem"), (.responseTooLarge, "responseTooLarge"), (.tooManyRedirects, "tooManyRedirects"),
        (.streamBufferFull, "streamBufferFull"), (.tls, "tls"), (.clientShutDown, "clientShutDown"),
        (.transportUnavailable, "transportUnavailable"), (.bodyNotReplayable, "bodyNotReplayable"),
        (.requestBodyFailed, "requestBodyFailed"), (.other, "other"), (.middleware, "middleware"),
    ]

    @Test func everyKindKeepsItsName() {
        for (kind, name) in Self.names {
            #expect(kind.name == name)
            #expect("\(kind)" == name)
            #expect(ConnectionError(kind).debugDescription.hasPrefix("ConnectionError.\(name) "))
        }
        // A kind added to the library without a row here fails: its name must be pinned too.
        #expect(ConnectionError.Kind.all.map(\.name) == Self.names.map(\.1))
        #expect(Set(Self.names.map(\.0)).count == Self.names.count)
    }

    @Test func kindsCompareByNameAndMatchInASwitch() {
        let error = ConnectionError(.unacceptableStatusCode(404, body: Data("gone".utf8)))
        #expect(error.kind == .unacceptableStatusCode)
        #expect(error.kind != .transport)
        #expect(ConnectionError.Kind.unacceptableStatusCode(500, body: nil) == error.kind)
        let matched: String
        switch error.kind {
        case .timedOut, .transport: matched = "network"
        case .unacceptableStatusCode where error.statusCode == 404: matched = "missing"
        default: matched = "other"
        }
        #expect(matched == "missing")
        #expect(error.statusCode == 404)
        #expect(error.responseBody == Data("gone".utf8))
    }

    @Test func detailsAreReadFromTheError() {
        let urlError = URLError(.cannotConnectToHost)
        let transport = ConnectionError(.transport(urlError))
        #expect(transport.urlError?.code == .cannotConnectToHost)
        #expect((transport.underlyingError as? URLError)?.code == .cannotConnectToHost)
        #expect(transport.statusCode == nil && transport.reason == nil && transport.limit == nil)

        #expect(ConnectionError(.invalidRequest(reason: "no URL")).reason == "no URL")
        #expect(ConnectionError(.responseTooLarge(limit: 1_000)).limit == 1_000)
        #expect(ConnectionError(.tooManyRedirects(limit: 10)).limit == 10)
        #expect(ConnectionError(.streamBufferFull(limit: 4096)).limit == 4096)
        let failure = TLSFailure(.untrustedCertificate, message: "untrusted")
        #expect(ConnectionError(.tls(failure)).tlsFailure == failure)
        let parsing = ConnectionError(.parsing(underlying: CocoaError(.coderReadCorrupt)))
        #expect(parsing.kind == .parsing && parsing.underlyingError is CocoaError)
        #expect(ConnectionError(.timedOut).isTimedOut)
        #expect(ConnectionError(.transport(URLError(.timedOut))).isTimedOut)
        #expect(ConnectionError(.cancelled).isCancelled)
        // A kind made without its details still reads as that kind, with no details.
        #expect(ConnectionError(.unacceptableStatusCode).statusCode == nil)
        #expect(ConnectionError(.unacceptableStatusCode).localizedDescription.contains("unacceptable status"))
    }
}
