import ConnectionKit
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `multipart-upload`: one large file uploaded in a multipart form, in a process that does nothing else, so that
/// its peak resident size (`VmHWM`) is what streaming that body from disk cost.
enum MultipartUpload {
    /// POSTs the form given at init on the transport given at init.
    final class Upload: ConnectionRequest<Data>, @unchecked Sendable {
        // Safe: only immutable stored properties.
        let target: URL
        let form: MultipartForm
        let chosen: ConnectionTransport
        init(_ target: URL, form: MultipartForm, transport: ConnectionTransport) {
            self.target = target
            self.form = form
            self.chosen = transport
            super.init()
            callbackQueue = DispatchQueue(label: "ChildProcessHelper.upload")
        }
        override var url: URL? { target }
        override var httpMethod: HTTPMethod { .post }
        override var requestBody: RequestBody? { .multipart(form) }
        override var timeoutInterval: TimeInterval { 120 }
        override var transport: ConnectionTransport { chosen }
    }

    /// The largest upload progress reported.
    final class Watch: @unchecked Sendable {
        // Safe: both properties are only touched under `lock`.
        private let lock = NSLock()
        private var completed: Int64 = 0
        private var expected: Int64?

        func record(_ progress: TransferProgress) {
            lock.withLock {
                guard progress.direction == .upload else { return }
                completed = max(completed, progress.completedBytes)
                expected = progress.expectedBytes ?? expected
            }
        }

        var line: String { lock.withLock { "PROGRESS \(completed) \(expected.map(String.init) ?? "-")" } }
    }

    /// The form of the test: a field `title` = `big`, then `file` as `big.bin`, with the boundary `big-boundary`.
    static func form(of file: URL) -> MultipartForm {
        var form = MultipartForm(boundary: "big-boundary")
        form.addField(name: "title", value: "big")
        form.addFile(name: "file", fileURL: file, filename: "big.bin")
        return form
    }

    /// Uploads a small form to `warmUp` first (so that the session, threads and buffers of a first upload exist),
    /// resets the peak, then uploads `file` to `url` and prints `ANSWER <body>`, `PROGRESS <completed>
    /// <expected>` (the largest upload progress reported) and `GROWTH <KiB>`: the peak resident size during the
    /// large upload over the resident size just before it. `ERROR <error>` when an upload fails.
    static func run(url: URL, warmUp: URL, file: URL, transport: ConnectionTransport) async {
        var small = MultipartForm(boundary: "warm-up")
        small.addField(name: "title", value: "warm-up")
        await PeakMemory.printGrowth {
            _ = try await Upload(warmUp, form: small, transport: transport).value()
        } during: {
            let watch = Watch()
            let upload = Upload(url, form: form(of: file), transport: transport)
            upload.progressHandler = { watch.record($0) }
            let answer = try await upload.value()
            return ["ANSWER \(String(decoding: answer, as: UTF8.self))", watch.line]
        }
    }
}
