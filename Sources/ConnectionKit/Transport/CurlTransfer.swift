#if canImport(CCurlShim)
    import CCurlShim
    import Foundation
    import FoundationNetworking
    import Synchronization

    /// One HTTP exchange on a ``CurlTransport``: its easy handle, the parsing of its response headers,
    /// and the delivery of its events to the receiver.
    ///
    /// Everything but `cancelled` belongs to the transport's loop thread, which is the only thread
    /// that sets the transfer up, runs libcurl's callbacks for it and ends it.
    final class CurlTransfer: TransferHandle, @unchecked Sendable {
        // Safe: the mutable properties below are only touched on the transport's loop thread
        // (see the type's comment); `cancelled` is atomic and is the one thing other threads touch.
        let request: URLRequest
        let bodyFile: URL?
        /// Dropped when the transfer ends, which also breaks the request → handle → receiver → request cycle.
        private var receiver: (any TransferReceiver)?
        private weak var transport: CurlTransport?
        private let cancelled = Atomic<Bool>(false)

        /// The shim's transfer (easy handle, header list, error buffer), while it exists.
        var xfer: UnsafeMutableRawPointer?
        /// True while the easy handle is in the multi handle, which then holds a +1 on `self`.
        var active = false
        /// Set before the transfer is posted to the loop.
        var tls = CurlTLSSettings.system
        private var bodyDescriptor: Int32 = -1
        private var bodyLength: Int64 = 0
        private var lastReportedUpload: Int64 = -1

        // The header block being parsed: reset by every status line (1xx blocks come first).
        private var status = 0
        private var httpVersion = "HTTP/1.1"
        private var fields: [(name: String, value: String)] = []
        private var inHeaderBlock = false
        /// Set once the blank line that ends a final (non-1xx) header block arrived: only then is there a response.
        private var response: HTTPURLResponse?

        init(request: URLRequest, bodyFile: URL?, receiver: any TransferReceiver, transport: CurlTransport) {
            self.request = request
            self.bodyFile = bodyFile
            self.receiver = receiver
            self.transport = transport
        }

        var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

        func cancel() {
            guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            transport?.post(.cancel(self))
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
            } else if let body, !body.isEmpty {
                bodyLength = Int64(body.count)
                bodyMode = 1
            }
            let method = request.httpMethod ?? "GET"
            let url = request.url?.absoluteString ?? ""
            var lines = (request.allHTTPHeaderFields ?? [:]).map { name, value in
                // curl drops a header given as `Name:`; `Name;` sends it with an empty value.
                value.isEmpty ? "\(name);" : "\(name): \(value)"
            }
            if request.value(forHTTPHeaderField: "Expect") == nil {
                // No `Expect: 100-continue` round trip before larger bodies.
                lines.append("Expect:")
            }
            let userdata = Unmanaged.passUnretained(self).toOpaque()
            var error = [CChar](repeating: 0, count: 256)
            let handle: UnsafeMutableRawPointer? = withCStrings(lines) { headers in
                url.withCString { url in
                    method.withCString { method in
                        (body ?? Data()).withUnsafeBytes { bytes in
                            var description = ccurl_request(
                                url: url, method: method, headers: headers.baseAddress,
                                header_count: Int32(headers.count), body_mode: bodyMode, body: bytes.baseAddress,
                                body_length: bodyLength, write: curlWrite, header: curlHeader, read: curlRead,
                                progress: curlProgress, userdata: userdata)
                            return ccurl_xfer_new(&description, &error)
                        }
                    }
                }
            }
            guard let handle else {
                let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl: \(reason)"])
            }
            xfer = handle
            return tls.apply(to: handle)
        }

        /// Frees the easy handle and closes the body's file (the handle is out of the multi handle);
        /// no event is delivered afterwards.
        func release() {
            receiver = nil
            if let xfer { ccurl_xfer_free(xfer) }
            xfer = nil
            if bodyDescriptor >= 0 { close(bodyDescriptor) }
            bodyDescriptor = -1
        }

        // MARK: - libcurl's callbacks (loop thread)

        fileprivate func received(_ bytes: UnsafeMutablePointer<CChar>, count: Int) -> Int {
            // A short count makes libcurl abort the transfer.
            guard !isCancelled else { return 0 }
            receiver?.transferDidReceive(data: Data(bytes: bytes, count: count))
            return count
        }

        fileprivate func receivedHeaderLine(_ bytes: UnsafeMutablePointer<CChar>, count: Int) -> Int {
            guard !isCancelled else { return 0 }
            var length = count
            // Byte by byte: as a String, "\r\n" is one Character.
            while length > 0, bytes[length - 1] == 0x0A || bytes[length - 1] == 0x0D { length -= 1 }
            let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
                status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                httpVersion = parts.first.map(String.init) ?? "HTTP/1.1"
                fields = []
                inHeaderBlock = true
                response = nil
            } else if line.isEmpty {
                guard inHeaderBlock else { return count }
                inHeaderBlock = false
                // 1xx blocks (100 Continue, 103 Early Hints) precede the real one.
                guard status >= 200 || status == 101 else { return count }
                deliverResponse()
            } else if inHeaderBlock, let colon = line.firstIndex(of: ":") {
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                fields.append((name, value))
            }
            return count
        }

        private func deliverResponse() {
            var headerFields: [String: String] = [:]
            var spelling: [String: String] = [:]
            for field in fields {
                let key = spelling[field.name.lowercased(), default: field.name]
                spelling[field.name.lowercased()] = key
                headerFields[key] = headerFields[key].map { "\($0), \(field.value)" } ?? field.value
            }
            guard
                let url = request.url,
                let response = HTTPURLResponse(
                    url: url, statusCode: status, httpVersion: httpVersion, headerFields: headerFields)
            else { return }
            self.response = response
            receiver?.transferDidReceive(response: response)
        }

        fileprivate func readBody(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
            guard !isCancelled, bodyDescriptor >= 0 else { return ccurl_read_abort() }
            while true {
                let count = read(bodyDescriptor, buffer, capacity)
                if count >= 0 { return count }
                if errno != EINTR { return ccurl_read_abort() }
            }
        }

        fileprivate func progressed(uploaded: Int64) -> Int32 {
            guard !isCancelled else { return 1 }
            if uploaded != lastReportedUpload, bodyLength > 0 {
                lastReportedUpload = uploaded
                receiver?.transferDidSend(totalBytes: uploaded, expectedBytes: bodyLength)
            }
            return 0
        }

        // MARK: - Ending (loop thread)

        /// libcurl finished the transfer with `result` (a CURLcode); the handle is out of the multi handle.
        func finish(result: Int32) {
            let reason = xfer.map { String(cString: ccurl_xfer_error($0)) } ?? ""
            let verifyResult = xfer.map { Int(ccurl_xfer_verify_result($0)) } ?? 0
            let receiver = self.receiver
            release()
            guard !isCancelled, let receiver else { return }
            if result == 0 {
                if let response {
                    receiver.transferDidComplete(response: response, error: nil)
                } else {
                    // libcurl reports success for a status line followed by a close (pitfall 1):
                    // without the end of a final header block there is no response.
                    let error = CurlErrorMapping.error(
                        .networkConnectionLost, "the connection closed before the end of the response headers",
                        detail: reason, url: request.url)
                    receiver.transferDidComplete(response: nil, error: error)
                }
            } else if let failure = CurlTLSErrorMapping.failure(
                result: result, detail: reason, verifyResult: verifyResult, settings: tls)
            {
                receiver.transferDidComplete(response: response, error: ConnectionError(.tls(failure)))
            } else {
                let error = CurlErrorMapping.error(
                    forResult: result, detail: reason, url: request.url, responseArrived: response != nil)
                receiver.transferDidComplete(response: response, error: error)
            }
        }

        /// Ends a transfer that could not be started.
        func fail(_ error: any Error) {
            let receiver = self.receiver
            release()
            guard !isCancelled, let receiver else { return }
            receiver.transferDidComplete(response: nil, error: error)
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
