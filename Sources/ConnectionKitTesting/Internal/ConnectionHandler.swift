import Foundation
import HTTPServerCore

/// Serves one client connection: reads requests one after another, runs their handlers outside the lock,
/// writes the responses, and decides when the connection ends.
struct ConnectionHandler {
    // MARK: - Properties

    let connection: SocketConnection
    let connectionID: Int
    let core: ServerCore

    // MARK: - Loop

    /// Serves requests until the connection should end; returns how the socket is to be closed.
    func run() -> ConnectionDisposition {
        var reader = HTTPRequestReader(connection: connection)
        let writer = ResponseWriter(connection: connection)
        do {
            while true {
                let digest = DigestBox()
                guard
                    let received = try reader.readRequest(
                        connectionID: connectionID,
                        bodyConsumer: { path in core.digestsBody(of: path) ? digest.consumer : nil })
                else { return .close }
                let request = TestRequest(received.request, bodyDigest: digest.isUsed ? digest.value : nil)
                let handler = core.admit(request)
                let response = handler?(request) ?? .text("no route", status: 404)
                let disposition = try writer.write(response, answering: received)
                guard case .keepAlive = disposition else { return disposition }
            }
        } catch ConnectionEnd.headersTooLarge {
            answerAndClose(status: 431)
            return .close
        } catch ConnectionEnd.malformedRequest {
            answerAndClose(status: 400)
            return .close
        } catch {
            return .close
        }
    }

    /// The digest of a body the reader streams instead of storing (``TestServer/digestBodies(of:)``).
    private final class DigestBox {
        var value = TestBodyDigest()
        var isUsed = false

        var consumer: (ArraySlice<UInt8>) -> Void {
            isUsed = true
            return { [self] bytes in value.update(bytes) }
        }
    }

    /// Sends a bodiless error answer, then reads out what the client is still sending so the close is a FIN
    /// rather than a reset that could destroy the answer.
    private func answerAndClose(status: Int) {
        let head =
            "HTTP/1.1 \(status) \(HTTPReasonPhrase.phrase(for: status))\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n"
        do {
            try connection.write(head)
        } catch {
            return
        }
        connection.finishWriting()
        connection.drainBeforeClose(timeout: 0.5)
    }
}
