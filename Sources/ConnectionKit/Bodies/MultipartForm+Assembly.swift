import Foundation

extension MultipartForm {
    /// The size of each piece copied from a file part.
    static let copyBufferSize = 64 * 1024

    /// Forms up to this size (all parts and boundaries) are sent from memory: faster on Linux, whose
    /// URLSession moves file bodies 16 KiB at a time. 4 MiB.
    static let inMemoryLimit: Int64 = 4 * 1024 * 1024

    /// The whole body in memory when it is at most `limit` bytes, otherwise `nil`.
    /// Throws `ConnectionError.fileSystem` when a file part cannot be read.
    func smallBody(limit: Int64 = inMemoryLimit) throws -> Data? {
        var total: Int64 = Int64(Data("--\(boundary)--\r\n".utf8).count)
        for part in parts {
            total += Int64(header(for: part).utf8.count + 2)
            switch part.content {
            case .data(let data):
                total += Int64(data.count)
            case .file(let url):
                do {
                    let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
                    total += size?.int64Value ?? limit + 1
                } catch {
                    throw ConnectionError(.fileSystem(underlying: error))
                }
            }
            if total > limit { return nil }
        }
        var body = Data()
        try assemble { body.append($0) }
        return body
    }

    /// Writes the whole body to a new file at `destination`, copying file parts in 64 KiB pieces.
    /// Throws `ConnectionError.fileSystem` when a part cannot be read or the file cannot be written.
    func write(to destination: URL) throws {
        guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
            throw ConnectionError(
                .fileSystem(
                    underlying: CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])))
        }
        do {
            let output = try FileHandle(forWritingTo: destination)
            defer { try? output.close() }
            try assemble { try output.write(contentsOf: $0) }
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw (error as? ConnectionError) ?? ConnectionError(.fileSystem(underlying: error))
        }
    }

    /// Produces the body in order, in pieces of at most 64 KiB for file parts. File parts are scanned for
    /// the boundary as they are copied (parts in memory were checked with the rest of the request by
    /// `WireValidation`): one found fails with `invalidRequest` and nothing is sent.
    private func assemble(_ emit: (Data) throws -> Void) throws {
        do {
            for (index, part) in parts.enumerated() {
                try emit(Data(header(for: part).utf8))
                switch part.content {
                case .data(let data):
                    try emit(data)
                case .file(let url):
                    let input = try FileHandle(forReadingFrom: url)
                    defer { try? input.close() }
                    var scanner = BoundaryScanner(boundary: boundary)
                    while let chunk = try input.read(upToCount: Self.copyBufferSize), !chunk.isEmpty {
                        if scanner.scan(chunk) {
                            let label = WireValidation.partLabel(index: index, name: part.name)
                            throw WireValidation.boundaryCollision(boundary, label: label, hook: "requestBody")
                                .connectionError
                        }
                        try emit(chunk)
                    }
                }
                try emit(Data("\r\n".utf8))
            }
            try emit(Data("--\(boundary)--\r\n".utf8))
        } catch {
            throw (error as? ConnectionError) ?? ConnectionError(.fileSystem(underlying: error))
        }
    }

    /// The boundary line and headers that open `part`.
    func header(for part: Part) -> String {
        var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
        if let filename = part.filename { header += "; filename=\"\(Self.quoted(filename))\"" }
        header += "\r\n"
        if let contentType = part.contentType { header += "Content-Type: \(contentType)\r\n" }
        return header + "\r\n"
    }

    /// Escapes what would end a quoted parameter (as browsers do: `"` → `%22`). CR, LF and NUL never get
    /// here: `WireValidation` refuses them before the body is assembled.
    static func quoted(_ value: String) -> String {
        value.replacingOccurrences(of: "\"", with: "%22")
    }
}
