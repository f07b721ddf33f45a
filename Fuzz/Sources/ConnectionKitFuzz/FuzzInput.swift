import Foundation

/// Splits one fuzz input into the several strings a target needs (a header, a path, query items…):
/// fields are separated by a newline, so that seeds stay readable text files.
struct FuzzInput {
    let fields: [String]

    init(_ data: Data) {
        fields = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
    }

    /// Field `index`, or `nil` past the end.
    subscript(_ index: Int) -> String? {
        fields.indices.contains(index) ? fields[index] : nil
    }

    /// The fields from `index` on.
    func fields(from index: Int) -> ArraySlice<String> {
        fields.dropFirst(index)
    }
}

/// A folder of its own for a target that must put the input in a file; removed at exit.
enum FuzzScratch {
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ck-fuzz-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FuzzScratch.folder) }
        return folder
    }()
}
