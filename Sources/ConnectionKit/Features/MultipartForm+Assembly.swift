import Foundation

extension MultipartForm {
    /// The size of each piece copied from a file part.
    static let copyBufferSize = 64 * 1024

    /// Writes the whole body to a new file at `destination`, copying file parts in 64 KiB pieces.
    /// Throws `ConnectionError.fileSystem` when a part cannot be read or the file cannot be written.
    func write(to destination: URL) throws {
        guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
            throw ConnectionError(
                .fileSystem(underlying: CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path]))
            )
        }
        do {
            let output = try FileHandle(forWritingTo: destination)
            defer { try? output.close() }
            for part in parts {
                try output.write(contentsOf: Data(header(for: part).utf8))
                switch part.content {
                case .data(let data):
                    try output.write(contentsOf: data)
                case .file(let url):
                    try Self.copy(from: url, to: output)
                }
                try output.write(contentsOf: Data("\r\n".utf8))
            }
            try output.write(contentsOf: Data("--\(boundary)--\r\n".utf8))
        } catch {
            try? FileManager.default.removeItem(at: destination)
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

    /// Escapes what would end a quoted parameter or a header line (as browsers do: `"` → `%22`, CR/LF → `%0D%0A`).
    static func quoted(_ value: String) -> String {
        value.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    private static func copy(from url: URL, to output: FileHandle) throws {
        let input = try FileHandle(forReadingFrom: url)
        defer { try? input.close() }
        while let chunk = try input.read(upToCount: copyBufferSize), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
    }
}
