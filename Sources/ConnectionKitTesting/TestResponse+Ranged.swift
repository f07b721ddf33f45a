import Foundation

// MARK: - Range requests

extension TestResponse {
    /// Serves `data` the way a static file server does for resumable downloads.
    ///
    /// - No `Range` header, a `Range` that is not one `bytes=` range, or an `If-Range` that matches neither
    ///   `etag` nor `lastModified`: 200 with the whole body.
    /// - `bytes=N-`, `bytes=N-M` (M clamped to the end) or `bytes=-S` (the last S bytes) that overlaps the body:
    ///   206 with `Content-Range: bytes N-M/len` and that slice.
    /// - A range starting at or past the end: 416 with `Content-Range: bytes */len` and an empty body.
    ///
    /// `ETag` and `Last-Modified` are sent whenever given (both default to `nil`); `Accept-Ranges: bytes` always.
    public static func ranged(
        _ data: Data,
        request: TestRequest,
        etag: String? = nil,
        lastModified: String? = nil
    ) -> TestResponse {
        var headers = [TestHeader("Accept-Ranges", "bytes")]
        if let etag { headers.append(TestHeader("ETag", etag)) }
        if let lastModified { headers.append(TestHeader("Last-Modified", lastModified)) }
        let whole = TestResponse(status: 200, headers: headers, body: .data(data))

        guard let rangeHeader = request.header("Range") else { return whole }
        if let ifRange = request.header("If-Range"), ifRange != etag, ifRange != lastModified {
            return whole
        }
        let length = data.count
        guard let range = ByteRangeRequest(rangeHeader) else { return whole }
        let bounds: (first: Int, last: Int)
        switch range {
        case .from(let first):
            bounds = (first, length - 1)
        case .bounded(let first, let last):
            bounds = (first, min(last, length - 1))
        case .suffix(let count):
            bounds = (max(0, length - count), count == 0 ? -1 : length - 1)
        }
        guard bounds.first < length, bounds.first <= bounds.last else {
            headers.append(TestHeader("Content-Range", "bytes */\(length)"))
            return TestResponse(status: 416, headers: headers)
        }
        return partial(data, first: bounds.first, last: bounds.last, headers: headers)
    }

    private static func partial(_ data: Data, first: Int, last: Int, headers: [TestHeader]) -> TestResponse {
        var headers = headers
        headers.append(TestHeader("Content-Range", "bytes \(first)-\(last)/\(data.count)"))
        let start = data.startIndex + first
        let slice = Data(data[start...(data.startIndex + last)])
        return TestResponse(status: 206, headers: headers, body: .data(slice))
    }
}
