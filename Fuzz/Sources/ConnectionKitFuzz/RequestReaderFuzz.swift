import ConnectionKitInspector
import ConnectionKitTesting
import Foundation

// The reader lives in HTTPServerCore, the server core ConnectionKitTesting and ConnectionKitInspector share
// (a target of this package's ConnectionKitTesting dependency, not a product of its own).
@testable import HTTPServerCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The servers' request parser (TestServer's and the inspector's) reading a client's bytes from a real socket (a socket pair
/// whose other end sends the input and closes): every request ends in a request, `nil` or a
/// `ConnectionEnd`, never a trap or a hang.
enum RequestReaderFuzz {
    static let wake: WakeSignal = {
        guard let wake = try? WakeSignal() else { fatalError("cannot create a pipe") }
        return wake
    }()
    /// Well below a socket pair's buffer, so that the whole input is written before reading.
    static let maximumInput = 64 * 1_024

    /// The inspector's limits, its head budget scaled down from 64 KiB to 4 KiB so that inputs within
    /// libFuzzer's length (8 KiB in scripts/fuzz.sh) reach the budget's refusal too.
    static let inspectorLimits = HTTPRequestReader.Limits(
        headBytes: min(ConnectionInspector.maximumHeadBytes, 4 * 1_024),
        headerLines: ConnectionInspector.maximumHeaderLines,
        requestTimeout: ConnectionInspector.requestTimeout)

    /// The inspector's reader: its limits, bodies dropped; no request it returns has more header lines
    /// than the budget allows.
    static func runInspector(_ input: Data) {
        run(input, limits: inspectorLimits)
    }

    static func run(_ input: Data, limits: HTTPRequestReader.Limits = .testServer) {
        var pair: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let streamType = Int32(SOCK_STREAM.rawValue)
        #else
            let streamType = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, streamType, 0, &pair) == 0 else {
            fatalError("socketpair: \(String(cString: strerror(errno)))")
        }
        defer { pair.forEach { close($0) } }
        let sent = input.prefix(maximumInput)
        let written = sent.withUnsafeBytes { send(pair[1], $0.baseAddress, $0.count, 0) }
        guard written == sent.count else { fatalError("short write to the socket pair") }
        shutdown(pair[1], Int32(SHUT_WR))
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        var reader = HTTPRequestReader(connection: SocketConnection(fd: pair[0], wake: wake), limits: limits)
        do {
            // Bodies of /digest… paths are streamed into a digest, as TestServer.digestBodies(of:) does.
            var digest = TestBodyDigest()
            while let received = try reader.readRequest(
                connectionID: 1,
                bodyConsumer: { path in path.hasPrefix("/digest") ? { digest.update($0) } : nil })
            {
                guard received.request.headers.count <= limits.headerLines else {
                    fatalError(
                        "\(received.request.headers.count) header lines passed a budget of \(limits.headerLines)")
                }
            }
            _ = digest.byteCount
        } catch is ConnectionEnd {
            return
        } catch {
            fatalError("the request reader threw something other than a ConnectionEnd: \(error)")
        }
    }
}
