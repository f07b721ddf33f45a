import Foundation

/// The files nginx serves (written by `ConnectionKitBenchmarks prepare`), and the JSON item type.
enum ServedFiles {
    static let small = "/1k.bin"
    static let json = "/1m.json"
    static let big = "/big.bin"

    /// How many items the 1 MiB JSON array holds (each encodes to about 100 bytes).
    static let jsonItemCount = 10_000

    /// One element of the 1 MiB JSON array: a typical API object (numbers, strings, a Bool, an array).
    struct Item: Codable, Sendable {
        let id: Int
        let name: String
        let score: Double
        let active: Bool
        let tags: [String]
    }

    /// Writes the 1 KiB file, the ~1 MiB JSON array and the large file (sparse: created instantly,
    /// read back by nginx as zeros from the page cache, so disk speed does not enter the figures).
    static func prepare(_ options: Options) throws {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: options.wwwDirectory, withIntermediateDirectories: true)
        try fileManager.createDirectory(at: options.downloadsDirectory, withIntermediateDirectories: true)
        try Data(repeating: UInt8(ascii: "x"), count: 1024).write(
            to: options.wwwDirectory.appendingPathComponent("1k.bin"))

        let items = (0..<jsonItemCount).map { index in
            Item(
                id: index, name: "item number \(index)", score: Double(index) * 1.25, active: index % 2 == 0,
                tags: ["alpha", "beta-\(index % 7)"])
        }
        try JSONEncoder().encode(items).write(to: options.wwwDirectory.appendingPathComponent("1m.json"))

        let bigURL = options.wwwDirectory.appendingPathComponent("big.bin")
        let size = (try? fileManager.attributesOfItem(atPath: bigURL.path)[.size] as? Int64) ?? nil
        if size != options.bigFileBytes {
            guard fileManager.createFile(atPath: bigURL.path, contents: nil) else {
                throw BenchmarkError("cannot create \(bigURL.path)")
            }
            let handle = try FileHandle(forWritingTo: bigURL)
            try handle.truncate(atOffset: UInt64(options.bigFileBytes))
            try handle.close()
        }
    }
}
