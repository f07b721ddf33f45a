#if canImport(CCurlShim)
    import CCurlShim
    import Foundation
    import FoundationNetworking
    import Synchronization

    /// One HTTP exchange on a ``CurlTransport``: its easy handle, the parsing of its response headers,
    /// and the delivery of its events to the receiver.
    ///
    /// Until it starts, the transfer belongs to the thread that prepared it (it is the transport's
    /// ``PreparedTransfer``); from then on, everything but `cancelled` and `unmatchedWaits` belongs to the
    /// transport's loop thread, which is the only thread that sets the transfer up, runs libcurl's
    /// callbacks for it and ends it.
    ///
    /// Flow control is the receiver's demand: while a `.wait` it answered is not matched by a
    /// ``demandMore()``, or while the body queue of a transfer saved to a file is full, the write callback
    /// returns `CURL_WRITEFUNC_PAUSE`: libcurl keeps that chunk, stops reading the socket, and hands the
    /// same chunk over again once the loop thread calls `curl_easy_pause(CURLPAUSE_CONT)` for a `resume`
    /// command. That call may run the write callback inside it, so the loop holds no lock while it makes it.
    final class CurlTransfer: PreparedTransfer, TransferHandle, @unchecked Sendable {
        // Safe: the mutable properties below are set by the preparing thread before `start` posts the
        // transfer (the inbox's lock orders that), then only touched on the transport's loop thread (see
        // the type's comment); `cancelled` and `unmatchedWaits` are atomic, the things other threads
        // touch; `admittedLoop` is only touched under the admission's lock; `bodyQueue` and `streamedBody` are
        // `let`s of Sendable types.
        let request: URLRequest
        let bodyFile: URL?
        /// The body pulled as it is sent (``StreamedBody``); `nil` for a body in memory or in a file.
        let streamedBody: StreamedBodyReader?
        /// The class's proxy; `nil` lets libcurl read the environment's.
        let proxy: URL?
        /// Dropped when the transfer ends, which also breaks the request → handle → receiver → request cycle.
        private var receiver: (any TransferReceiver)?
        private weak var transport: CurlTransport?
        private let cancelled = Atomic<Bool>(false)
        /// The receiver's `.wait` answers (loop thread or body queue) less its ``demandMore()`` calls (any
        /// thread, possibly first): the body is held back while it is above zero.
        private let unmatchedWaits = Atomic<Int>(0)
        /// The write callback returned `CURL_WRITEFUNC_PAUSE`: libcurl holds a chunk and reads no more.
        private var paused = false
        /// The read callback returned `CURL_READFUNC_PAUSE`: the streamed body had nothing ready; its producer
        /// posts a `resume` once it has.
        private var sendPaused = false
        /// The streamed body's bytes handed to libcurl so far (its upload progress).
        private var streamedBytes: Int64 = 0
        /// Bodies saved to a file: where their events go, off the loop thread (`nil`: delivered on it).
        /// The queue of a transfer whose body is saved to a file (`nil` otherwise); tests read its figures.
        let bodyQueue: CurlBodyQueue?

        /// The shim's transfer (easy handle, header list, error buffer), while it exists.
        var xfer: UnsafeMutableRawPointer?
        /// True while the easy handle is in the multi handle, which then holds a +1 on `self`.
        var active = false
        /// Set before the transfer is posted to the loop.
        var tls = CurlTLSSettings.system
        /// A saved body's pieces since the loop last flushed them, in one of the body queue's buffers.
        private var gathered: (buffer: UnsafeMutableRawPointer, count: Int)?
        /// The loop running the transfer, which flushes its gathered pieces at the end of each iteration.
        weak var loop: CurlLoop?
        private var bodyDescriptor: Int32 = -1
        private var bodyLength: Int64 = 0
        private var lastReportedUpload: Int64 = -1

        // The header block being parsed: reset by every status line (1xx blocks come first).
        private var status = 0
        private var httpVersion = "HTTP/1.1"
        private var fields: [ResponseHeaderField] = []
        /// The field lines a head is expected to have; more only grow the list.
        private static let usualFieldCount = 16
        private var inHeaderBlock = false
        /// Set once the blank line that ends a final (non-1xx) header block arrived: only then is there a response.
        private var response: TransportResponse?
        /// Header bytes of this response so far, interim (1xx) blocks included.
        private var headerBytes = 0
        /// The head passed ``maximumHeaderBytes``: the transfer was aborted for it.
        private var headerTooLarge = false

        /// The most header bytes one response may bring, 1xx blocks included (as libcurl 8 bounds it):
        /// without it, a libcurl that predates that bound reads an endless head into memory.
        static let maximumHeaderBytes = 300 * 1024

        /// libcurl's receive buffer for a body saved to a file, larger than libcurl's default: each piece
        /// crosses to the transfer's body queue and is written with one `write(2)`, so larger pieces pay that
        /// crossing and that system call fewer times per byte (measured in docs/benchmarks.md). Kept within
        /// what every libcurl accepts (7.88 raised its maximum), and small beside the queue's bound.
        static let savedBodyReceiveBuffer = 128 << 10

        /// The scheme and authority of the request's URL, lowercased, without user info: what the per-host
        /// connection limit counts by.
        let hostKey: String
        /// The in-memory loop the transport's admission placed the transfer on, or ``notAdmitted``: only
        /// read and written under the admission's lock.
        var admittedLoop = CurlTransfer.notAdmitted
        static let notAdmitted = -1

        init(
            request: URLRequest, bodyFile: URL?, transport: CurlTransport, savedToFile: Bool, proxy: URL? = nil,
            streamedBody: StreamedBodyReader? = nil
        ) {
            self.request = request
            self.bodyFile = bodyFile
            self.streamedBody = streamedBody
            self.proxy = proxy
            self.transport = transport
            self.bodyQueue = savedToFile ? CurlBodyQueue() : nil
            self.hostKey = Self.hostKey(of: request.url)
        }

        /// Whether the body is saved to a file (and so runs on the transport's file lane).
        var savedToFile: Bool { bodyQueue != nil }

        /// `scheme://host:port` as written in `url`, lowercased, without user info. Cheaper than asking the
        /// URL for its parts, and the same for every URL a server's requests are made from.
        static func hostKey(of url: URL?) -> String {
            let text = url?.absoluteString ?? ""
            let utf8 = text.utf8
            guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return text.lowercased() }
            var start = utf8.index(after: colon)
            while start != utf8.endIndex, utf8[start] == UInt8(ascii: "/") { start = utf8.index(after: start) }
            let end =
                utf8[start...].firstIndex {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                }
                ?? utf8.endIndex
            var authorityStart = start
            if let at = utf8[start..<end].lastIndex(of: UInt8(ascii: "@")) { authorityStart = utf8.index(after: at) }
            let scheme = utf8[..<colon]
            let authority = utf8[authorityStart..<end]
            guard scheme.allSatisfy({ $0 < 0x80 }), authority.allSatisfy({ $0 < 0x80 }) else {
                return (text[..<colon] + "://" + text[authorityStart..<end]).lowercased()
            }
            // ASCII, folded as it is copied: one String where joining, then lowercasing, made two.
            return String(unsafeUninitializedCapacity: scheme.count + 3 + authority.count) { key in
                var count = 0
                func append(_ part: Substring.UTF8View) {
                    for byte in part {
                        key[count] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                        count += 1
                    }
                }
                append(scheme)
                append("://".utf8[...])
                append(authority)
                return count
            }
        }

        var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

        func cancel() {
            guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            transport?.post(.cancel(self))
        }

        /// Hands the transfer to its loop; the receiver gets its events from there.
        func start(receiver: any TransferReceiver) -> any TransferHandle {
            self.receiver = receiver
            transport?.post(.start(self))
            return self
        }

        /// Fails the transfer with `clientShutDown` on another thread: the client shut down before it reached
        /// a loop, and the caller may be inside `startTransfer`, where no event may be delivered (the
        /// threading contract).
        func failShutDownLater() {
            DispatchQueue.global().async { [self] in fail(ConnectionError(.clientShutDown)) }
        }

        var followsDemand: Bool { true }

        func demandMore() {
            unmatchedWaits.subtract(1, ordering: .sequentiallyConsistent)
            transport?.post(.resume(self))
        }

        /// Records the receiver's answer to a chunk. A `.wait` takes effect at the next chunk: the one
        /// just delivered is already taken.
        private func note(_ demand: TransferDemand) {
            if demand == .wait { unmatchedWaits.add(1, ordering: .sequentiallyConsistent) }
        }

        /// Whether the receiver's demand lets the body come: no `.wait` is left unmatched.
        private var isDemanded: Bool { unmatchedWaits.load(ordering: .sequentiallyConsistent) <= 0 }

        /// On the loop thread, for a `resume` command: lets libcurl read again unless the receiver still
        /// waits, and send again when the streamed body paused it. libcurl may hand the held chunk over, and
        /// ask for body bytes, inside this call (a direction with nothing new pauses itself again).
        func resumeIfPaused() {
            guard active, let xfer else { return }
            let receive = paused && isDemanded
            guard receive || sendPaused else { return }
            if receive { paused = false }
            sendPaused = false
            _ = ccurl_xfer_unpause(xfer)
        }

        // MARK: - Setting up (loop thread)

        /// Creates the easy handle. On failure, the error the transfer ends with.
        func makeHandle() -> (any Error)? {
            var bodyMode: Int32 = 0
            var body = request.httpBody
            if let bodyFile {
                let descriptor = open(bodyFile.path, O_RDONLY | O_CLOEXEC)
                var info = stat()
                guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
                    if descriptor >= 0 { close(descriptor) }
                    return URLError(
                        .cannotOpenFile,
                        userInfo: [NSLocalizedDescriptionKey: "the request body's file could not be opened"])
                }
                bodyDescriptor = descriptor
                bodyLength = Int64(info.st_size)
                bodyMode = 2
                body = nil
            } else if let streamedBody {
                // Read as it is sent; without a length libcurl sends it chunked (HTTP/1.1) or in data frames.
                bodyLength = streamedBody.length ?? -1
                bodyMode = 2
                body = nil
            } else if let body, !body.isEmpty {
                bodyLength = Int64(body.count)
                bodyMode = 1
            }
            let method = request.httpMethod ?? "GET"
            let url = request.url?.absoluteString ?? ""
            let lines = headerLines(bodyless: bodyMode == 0 && (method == "GET" || method == "HEAD"))
            let userdata = Unmanaged.passUnretained(self).toOpaque()
            var error = [CChar](repeating: 0, count: 256)
            // The proxy's string lives as long as the headers' (freed after the call; libcurl copies it).
            let strings = lines + (proxy.map { [$0.absoluteString] } ?? [])
            let handle: UnsafeMutableRawPointer? = withCStrings(strings) { all in
                let headers = UnsafeBufferPointer(rebasing: all.prefix(lines.count))
                let proxy = all.count > lines.count ? all[lines.count] : nil
                return url.withCString { url in
                    method.withCString { method in
                        (body ?? Data()).withUnsafeBytes { bytes in
                            var description = ccurl_request(
                                url: url, method: method, headers: headers.baseAddress,
                                header_count: Int32(headers.count), body_mode: bodyMode, body: bytes.baseAddress,
                                body_length: bodyLength, write: curlWrite, header: curlHeader, read: curlRead,
                                progress: curlProgress, userdata: userdata, proxy: proxy,
                                receive_buffer: savedToFile ? Self.savedBodyReceiveBuffer : 0)
                            return ccurl_xfer_new(&description, &error)
                        }
                    }
                }
            }
            guard let handle else {
                let reason = scrubbed(
                    String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                return URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl: \(reason)"])
            }
            xfer = handle
            // libcurl reads these options only for an https origin (a proxy's are the `PROXY_` ones, which
            // these are not): a plain-http transfer skips copying them.
            if request.url?.scheme?.lowercased() == "http" { return nil }
            return tls.apply(to: handle)
        }

        /// The request's header fields as libcurl takes them, and the lines that turn off what libcurl
        /// would add on its own: the transport sends only what the request asked for (docs/linux.md,
        /// "What reaches the server"). A `bodyless` request (a `GET` or `HEAD` without a body, which the shim
        /// sends in libcurl's GET or HEAD mode) gets neither an `Expect` nor a `Content-Type` from libcurl, so
        /// it needs no line against them: fewer lines for libcurl to scan at every header it checks.
        private func headerLines(bodyless: Bool) -> [String] {
            var lines = (request.allHTTPHeaderFields ?? [:]).map { name, value in
                // curl drops a header given as `Name:`; `Name;` sends it with an empty value.
                value.isEmpty ? "\(name);" : "\(name): \(value)"
            }
            if bodyless { return lines }
            if request.value(forHTTPHeaderField: "Expect") == nil {
                // No `Expect: 100-continue` round trip before larger bodies.
                lines.append("Expect:")
            }
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                // libcurl's POST mode, which sends every body here, adds `Content-Type:
                // application/x-www-form-urlencoded` to a body without one: a server then reads JSON as a form.
                // The body goes out with the fields the user gave, as over URLSession.
                lines.append("Content-Type:")
            }
            return lines
        }

        /// Frees the easy handle and closes the body's file (the handle is out of the multi handle);
        /// no event is delivered afterwards.
        func release() {
            if let current = gathered, let bodyQueue { bodyQueue.buffers.give(current.buffer) }
            gathered = nil
            receiver = nil
            // The producer's iteration ends with the transfer, whichever way it ended.
            streamedBody?.cancel()
            if let xfer { ccurl_xfer_free(xfer) }
            xfer = nil
            if bodyDescriptor >= 0 { close(bodyDescriptor) }
            bodyDescriptor = -1
        }

        // MARK: - libcurl's callbacks (loop thread)

        fileprivate func received(_ bytes: UnsafeMutablePointer<CChar>, count: Int) -> Int {
            // A short count makes libcurl abort the transfer.
            guard !isCancelled else { return 0 }
            guard isDemanded, bodyQueue?.hasRoom(besides: gathered?.count ?? 0) ?? true else {
                paused = true
                return ccurl_write_pause()
            }
            guard let receiver else { return count }
            guard let bodyQueue else {
                note(receiver.transferDidReceive(bytes: UnsafeRawBufferPointer(start: bytes, count: count)))
                return count
            }
            gather(UnsafeRawBufferPointer(start: bytes, count: count), buffers: bodyQueue.buffers)
            return count
        }

        /// Adds a piece of a saved body to the pieces gathered in this loop iteration. libcurl hands each read
        /// over in pieces of at most its `CURL_MAX_WRITE_SIZE`, whatever its receive buffer: queued one by one,
        /// each piece would cost a queue hop, an allocation and a `write(2)` of its own.
        private func gather(_ piece: UnsafeRawBufferPointer, buffers: CurlBodyBuffers) {
            if let current = gathered, current.count + piece.count > CurlBodyBuffers.capacity { flushGathered() }
            guard piece.count <= CurlBodyBuffers.capacity else { return enqueueBody(Data(piece)) }
            if gathered == nil {
                gathered = (buffers.take(), 0)
                loop?.flushAfterIteration(self)
            }
            guard var current = gathered, let base = piece.baseAddress else { return }
            (current.buffer + current.count).copyMemory(from: base, byteCount: piece.count)
            current.count += piece.count
            gathered = current
            // Without a loop to flush it (never the case for a started transfer), nothing may wait.
            if loop == nil { flushGathered() }
        }

        /// Hands the pieces gathered so far to the body queue as one chunk: at the end of the loop iteration
        /// that brought them, and before any other event of the transfer (the events stay in order).
        func flushGathered() {
            guard let current = gathered, let bodyQueue else { return }
            gathered = nil
            let buffers = bodyQueue.buffers
            enqueueBody(
                Data(
                    bytesNoCopy: current.buffer, count: current.count,
                    deallocator: .custom { buffer, _ in buffers.give(buffer) }))
        }

        private func enqueueBody(_ data: Data) {
            guard let receiver, let bodyQueue else { return }
            bodyQueue.enqueue(
                bytes: data.count,
                { [self] in if !isCancelled { note(receiver.transferDidReceive(data: data)) } },
                resume: { [self] in transport?.post(.resume(self)) })
        }

        /// Hands an event without body bytes to the receiver: at once on the loop thread, or after the
        /// body already queued for a transfer saved to a file (the events stay in order).
        private func deliver(_ event: @escaping @Sendable (any TransferReceiver) -> Void) {
            guard let receiver else { return }
            guard let bodyQueue else { return event(receiver) }
            flushGathered()
            bodyQueue.enqueue { [self] in if !isCancelled { event(receiver) } }
        }

        fileprivate func receivedHeaderLine(_ bytes: UnsafeMutablePointer<CChar>, count: Int) -> Int {
            guard !isCancelled else { return 0 }
            headerBytes += count
            guard headerBytes <= Self.maximumHeaderBytes else {
                // A short count aborts the transfer; `finish` reports why.
                headerTooLarge = true
                return 0
            }
            var length = count
            // Byte by byte: as a String, "\r\n" is one Character.
            while length > 0, bytes[length - 1] == 0x0A || bytes[length - 1] == 0x0D { length -= 1 }
            let raw = UnsafeRawBufferPointer(start: bytes, count: length)
            // A field line is cut up byte by byte: this runs for every header of every response, and
            // Foundation's trimming bridges through NSString (a fifth of the loop thread's time).
            if inHeaderBlock, length > 0, !raw.starts(with: "HTTP/".utf8), let colon = raw.firstIndex(of: 0x3A) {
                var start = colon + 1
                var end = length
                while start < end, raw[start] == 0x20 || raw[start] == 0x09 { start += 1 }
                while end > start, raw[end - 1] == 0x20 || raw[end - 1] == 0x09 { end -= 1 }
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: raw[..<colon]), as: UTF8.self)
                let value = String(decoding: UnsafeRawBufferPointer(rebasing: raw[start..<end]), as: UTF8.self)
                fields.append(ResponseHeaderField(name: name, value: value))
                return count
            }
            if raw.starts(with: "HTTP/".utf8) {
                (httpVersion, status) = Self.statusLine(raw)
                // One allocation for a head of ordinary size, where growing from empty took four.
                fields.removeAll(keepingCapacity: true)
                fields.reserveCapacity(Self.usualFieldCount)
                inHeaderBlock = true
                response = nil
            } else if length == 0 {
                guard inHeaderBlock else { return count }
                inHeaderBlock = false
                // 1xx blocks (100 Continue, 103 Early Hints) precede the real one.
                guard status >= 200 || status == 101 else { return count }
                if let xfer, Self.namesCodingLibcurlCannotDecode(fields) { _ = ccurl_xfer_keep_body_coded(xfer) }
                deliverResponse()
            }
            return count
        }

        /// The content and transfer codings the loaded libcurl decodes.
        private static let decodedCodings: Set<String> = {
            let codings = ccurl_decoded_codings()
            var names: Set<String> = ["identity", "none", "chunked"]
            if codings & ccurl_coding_zlib != 0 { names.formUnion(["gzip", "x-gzip", "deflate"]) }
            if codings & ccurl_coding_brotli != 0 { names.insert("br") }
            if codings & ccurl_coding_zstd != 0 { names.insert("zstd") }
            return names
        }()

        /// Whether `fields` name a content or transfer coding libcurl does not decode. libcurl fails such a
        /// transfer ("Unrecognized content encoding type") where RFC 9110 §8.4 lets a recipient keep the body
        /// coded, as browsers hand it over: the body is then kept as sent, its `Content-Encoding` telling how.
        static func namesCodingLibcurlCannotDecode(_ fields: [ResponseHeaderField]) -> Bool {
            for field in fields
            where ResponseHead.name(field.name, is: "content-encoding")
                || ResponseHead.name(field.name, is: "transfer-encoding")
            {
                for coding in field.value.split(separator: ",") {
                    let name = coding.trimmingCharacters(in: .whitespaces).lowercased()
                    if !name.isEmpty, !decodedCodings.contains(name) { return true }
                }
            }
            return false
        }

        /// The version and status code of a status line (`HTTP/1.1 200 OK`), read in place: the version is
        /// up to the first space, the code the next word as an integer (0 when it is none).
        static func statusLine(_ raw: UnsafeRawBufferPointer) -> (version: String, status: Int) {
            let space = raw.firstIndex(of: 0x20) ?? raw.count
            let version = String(decoding: UnsafeRawBufferPointer(rebasing: raw[..<space]), as: UTF8.self)
            var start = space
            while start < raw.count, raw[start] == 0x20 { start += 1 }
            let end = raw[start...].firstIndex(of: 0x20) ?? raw.count
            let word = UnsafeRawBufferPointer(rebasing: raw[start..<end])
            // Three digits, the code of every real response, without making a String of them.
            if word.count == 3, word.allSatisfy({ (0x30...0x39).contains($0) }) {
                return (version, word.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            }
            return (version, Int(String(decoding: word, as: UTF8.self)) ?? 0)
        }

        private func deliverResponse() {
            guard let url = request.url else { return }
            let response = TransportResponse(
                url: url, statusCode: status, httpVersion: httpVersion, head: ResponseHead(lines: fields))
            self.response = response
            deliver { $0.transferDidReceive(response: response) }
        }

        fileprivate func readBody(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
            if let streamedBody { return readStreamed(streamedBody, into: buffer, capacity: capacity) }
            guard !isCancelled, bodyDescriptor >= 0 else { return ccurl_read_abort() }
            while true {
                let count = read(bodyDescriptor, buffer, capacity)
                if count >= 0 { return count }
                if errno != EINTR { return ccurl_read_abort() }
            }
        }

        /// The next bytes of a streamed body, never waiting: with none ready the transfer pauses its sending
        /// until the producer has a chunk (its `ready` callback posts the resume). Progress counts the bytes
        /// handed to libcurl, which are the body's alone (libcurl's own count includes the chunk framing).
        private func readStreamed(_ body: StreamedBodyReader, into buffer: UnsafeMutablePointer<CChar>, capacity: Int)
            -> Int
        {
            guard !isCancelled else { return ccurl_read_abort() }
            let read = body.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)) { [self] in
                transport?.post(.resume(self))
            }
            switch read {
            case .bytes(let count):
                streamedBytes += Int64(count)
                let (sent, expected) = (streamedBytes, body.length ?? -1)
                deliver { $0.transferDidSend(totalBytes: sent, expectedBytes: expected) }
                return count
            case .wait:
                sendPaused = true
                return ccurl_read_pause()
            case .end:
                // The length is known now: the last report says so, which makes it due whatever the rate.
                let sent = streamedBytes
                deliver { $0.transferDidSend(totalBytes: sent, expectedBytes: sent) }
                return 0
            case .failed:
                return ccurl_read_abort()
            }
        }

        fileprivate func progressed(uploaded: Int64) -> Int32 {
            guard !isCancelled else { return 1 }
            if uploaded != lastReportedUpload, bodyLength > 0, streamedBody == nil {
                lastReportedUpload = uploaded
                let expected = bodyLength
                deliver { $0.transferDidSend(totalBytes: uploaded, expectedBytes: expected) }
            }
            return 0
        }

        // MARK: - Ending (loop thread)

        /// libcurl finished the transfer with `result` (a CURLcode); the handle is out of the multi handle.
        func finish(result: Int32) {
            let reason = scrubbed(xfer.map { String(cString: ccurl_xfer_error($0)) } ?? "")
            let verifyResult = xfer.map { Int(ccurl_xfer_verify_result($0)) } ?? 0
            guard !isCancelled, receiver != nil else { return release() }
            let response = self.response
            if result != 0, let failure = streamedBody?.failure {
                // The body's sequence threw, or broke its length: that, not libcurl's abort, is the reason.
                return complete(response: response, error: failure)
            }
            // Read before `complete` releases the easy handle; delivered in order with the body.
            if let metrics = xfer.map(Self.metrics(of:)) { deliver { $0.transferDidCollect(metrics: metrics) } }
            if headerTooLarge {
                complete(
                    response: nil, error: ConnectionError(.responseTooLarge(limit: Int64(Self.maximumHeaderBytes))))
            } else if result == 0 {
                if let response {
                    complete(response: response, error: nil)
                } else {
                    // libcurl reports success for a status line followed by a close (pitfall 1):
                    // without the end of a final header block there is no response.
                    let error = CurlErrorMapping.error(
                        .networkConnectionLost, "the connection closed before the end of the response headers",
                        detail: reason, url: request.url)
                    complete(response: nil, error: error)
                }
            } else if let failure = CurlTLSErrorMapping.failure(
                result: result, detail: reason, verifyResult: verifyResult, settings: tls)
            {
                complete(response: response, error: ConnectionError(.tls(failure)))
            } else {
                let error = CurlErrorMapping.error(
                    forResult: result, detail: reason, url: request.url, responseArrived: response != nil)
                complete(response: response, error: error)
            }
        }

        /// What libcurl measured for the finished transfer `xfer`. Name lookup and connect are left
        /// `nil` on a reused connection, where neither happened (as URLSession reports it).
        private static func metrics(of xfer: UnsafeMutableRawPointer) -> TransferMetrics {
            var raw = ccurl_metrics()
            ccurl_xfer_metrics(xfer, &raw)
            func seconds(_ microseconds: Int64) -> TimeInterval { TimeInterval(max(0, microseconds)) / 1_000_000 }
            var metrics = TransferMetrics()
            let address = raw.remote_address.map { String(cString: $0) } ?? ""
            if !address.isEmpty {
                metrics.remoteAddress = address
                metrics.remotePort = raw.remote_port > 0 ? raw.remote_port : nil
                metrics.isReusedConnection = raw.new_connections == 0
            }
            if raw.new_connections > 0 {
                metrics.domainLookupDuration = seconds(raw.name_lookup_us)
                metrics.connectDuration = seconds(raw.connect_us - raw.name_lookup_us)
                if raw.app_connect_us > 0 {
                    metrics.secureConnectionDuration = seconds(raw.app_connect_us - raw.connect_us)
                }
            }
            if raw.start_transfer_us > 0 { metrics.timeToFirstByte = seconds(raw.start_transfer_us) }
            metrics.totalDuration = seconds(raw.total_us)
            metrics.bodyBytesSent = raw.body_bytes_sent
            metrics.bodyBytesReceived = raw.body_bytes_received
            metrics.httpVersion = raw.http_version.map { String(cString: $0) }
            return metrics
        }

        /// `text` without the proxy's user name and password, should libcurl's message quote them.
        private func scrubbed(_ text: String) -> String {
            guard let proxy else { return text }
            let secrets = [proxy.password, proxy.user, proxy.password?.removingPercentEncoding]
            return secrets.compactMap { $0 }.filter { !$0.isEmpty }.reduce(text) {
                $0.replacingOccurrences(of: $1, with: Redaction.placeholder)
            }
        }

        /// Ends a transfer that could not be started.
        func fail(_ error: any Error) {
            guard !isCancelled, receiver != nil else { return release() }
            complete(response: nil, error: error)
        }

        /// The one completion (after any queued body), then the handle is freed.
        private func complete(response: TransportResponse?, error: (any Error)?) {
            let outcome = SendableBox(error)
            deliver { $0.transferDidComplete(response: response, error: outcome.value) }
            release()
        }
    }

    /// Runs `body` with `strings` as C strings that live for the call.
    private func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>>) -> Result
    ) -> Result {
        let copies = strings.compactMap { strdup($0) }
        defer { copies.forEach { free($0) } }
        return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
    }

    // Capture-free C callbacks: `userdata` is the transfer, kept alive by the +1 the transport holds
    // while the easy handle is in the multi handle.

    private let curlWrite: @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, userdata in
        guard let userdata else { return 0 }
        return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue().received(bytes, count: size * count)
    }

    private let curlHeader: @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, userdata in
        guard let userdata else { return 0 }
        return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            .receivedHeaderLine(bytes, count: size * count)
    }

    private let curlRead: @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        buffer, size, count, userdata in
        guard let userdata else { return ccurl_read_abort() }
        return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            .readBody(into: buffer, capacity: size * count)
    }

    private let curlProgress: @convention(c) (UnsafeMutableRawPointer?, Int64, Int64, Int64, Int64) -> Int32 = {
        userdata, _, _, _, uploaded in
        guard let userdata else { return 1 }
        return Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue().progressed(uploaded: uploaded)
    }
#endif
