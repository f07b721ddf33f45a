import Foundation

/// A fresh folder under the system temporary folder for one test; `remove()` deletes it.
struct Scratch {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ck-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }

    /// Every name in the folder, hidden ones (partial files, resume records) included, sorted.
    func contents() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}
