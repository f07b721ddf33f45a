import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `save-to-file`: one large body saved by a `DownloadRequest`, in a process that does nothing else, so that
/// its peak resident size (`VmHWM`) is what saving that body cost.
enum SaveToFile {
    /// A download that checks the SHA-256 of what it saves: the hashing runs where the body's pieces are
    /// written, so the writer is slower than loopback delivers and any queue before it fills.
    final class CheckedDownload: DownloadRequest, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let digest: String?
        let chosen: ConnectionTransport
        init(from url: URL, to destination: URL, digest: String?, transport: ConnectionTransport) {
            self.digest = digest
            self.chosen = transport
            super.init(from: url, to: destination)
        }
        override var expectedSHA256: String? { digest }
        override var transport: ConnectionTransport { chosen }
    }

    /// Saves `warmUp` first (so that the sessions, threads and buffers of a first transfer exist), resets the
    /// peak, then saves `url` and prints `GROWTH <KiB>`: the peak resident size during the large save over
    /// the resident size just before it. `ERROR <error>` when a save fails.
    static func run(url: URL, warmUp: URL, destination: URL, digest: String, transport: ConnectionTransport) async {
        await PeakMemory.printGrowth {
            _ = try await CheckedDownload(from: warmUp, to: destination, digest: nil, transport: transport).value()
        } during: {
            _ = try await CheckedDownload(from: url, to: destination, digest: digest, transport: transport).value()
            return []
        }
    }
}
