import Foundation

/// What is on the disk after a power cut, from a ``PowerLossRecorder``'s events: a file keeps what was synced
/// (`fsync`/`fdatasync`) and, of each write since, all of it, none of it or a prefix torn at any byte; a
/// folder keeps the entries it had when last synced and, of each creation, rename and removal since, any
/// (a rename is all or nothing). Folders themselves are taken as durable (the queue creates them at open).
struct PowerCut {
    private struct File {
        var durable: [UInt8] = []
        var unsynced: [(offset: Int, bytes: [UInt8])] = []
    }

    private enum Change {
        case add(String, Int)
        case remove(String)
        case rename(String, String, Int)
    }

    private struct Folder {
        var durable: [String: Int] = [:]
        var current: [String: Int] = [:]
        var unsynced: [Change] = []
    }

    private var files: [File] = []
    private var folders: [String: Folder] = [:]

    /// The state after `events`, before the cut.
    init(_ events: ArraySlice<PowerLossRecorder.Event>) {
        for event in events { apply(event) }
    }

    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    private func file(at path: String) -> Int? {
        let (folder, name) = Self.split(path)
        return folders[folder]?.current[name]
    }

    private mutating func apply(_ event: PowerLossRecorder.Event) {
        switch event {
        case .create(let path):
            let (folder, name) = Self.split(path)
            files.append(File())
            folders[folder, default: Folder()].current[name] = files.count - 1
            folders[folder, default: Folder()].unsynced.append(.add(name, files.count - 1))
        case .write(let path, let offset, let bytes):
            guard let index = file(at: path) else { return }
            files[index].unsynced.append((offset, bytes))
        case .sync(let path):
            guard let index = file(at: path) else { return }
            files[index].durable = Self.content(
                files[index].durable, files[index].unsynced.map { ($0, $0.bytes.count) })
            files[index].unsynced = []
        case .rename(let source, let target):
            let (folder, from) = Self.split(source)
            let to = Self.split(target).name
            guard let index = file(at: source) else { return }
            folders[folder]?.current[from] = nil
            folders[folder]?.current[to] = index
            folders[folder]?.unsynced.append(.rename(from, to, index))
        case .unlink(let path):
            let (folder, name) = Self.split(path)
            folders[folder]?.current[name] = nil
            folders[folder]?.unsynced.append(.remove(name))
        case .syncFolder(let folder):
            folders[folder, default: Folder()].durable = folders[folder]?.current ?? [:]
            folders[folder]?.unsynced = []
        case .mark:
            break
        }
    }

    /// `base` with each write applied up to its kept length.
    private static func content(_ base: [UInt8], _ writes: [((offset: Int, bytes: [UInt8]), Int)]) -> [UInt8] {
        var content = base
        for (write, kept) in writes where kept > 0 {
            let end = write.offset + kept
            if content.count < end { content += [UInt8](repeating: 0, count: end - content.count) }
            content.replaceSubrange(write.offset..<end, with: write.bytes[0..<kept])
        }
        return content
    }

    /// Writes into `directory` (which must not exist) one folder a power cut could leave, chosen by `random`.
    func rebuild(into directory: URL, random: inout some RandomNumberGenerator) throws {
        let manager = FileManager.default
        let attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o700]
        try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: attributes)
        for name in ["pending", "bodies", "dead", "corrupt", "journal"] {
            try manager.createDirectory(
                at: directory.appendingPathComponent(name), withIntermediateDirectories: true, attributes: attributes)
        }
        for (path, folder) in folders.sorted(by: { $0.key < $1.key }) {
            var entries = folder.durable
            for change in folder.unsynced where Bool.random(using: &random) {
                switch change {
                case .add(let name, let index): entries[name] = index
                case .remove(let name): entries[name] = nil
                case .rename(let from, let to, let index):
                    if entries[from] == index { entries[from] = nil }
                    entries[to] = index
                }
            }
            for (name, index) in entries.sorted(by: { $0.key < $1.key }) {
                let file = files[index]
                let kept = file.unsynced.map { write -> ((offset: Int, bytes: [UInt8]), Int) in
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: return (write, write.bytes.count)
                    case 1: return (write, 0)
                    default: return (write, Int.random(in: 0...write.bytes.count, using: &random))
                    }
                }
                let url = directory.appendingPathComponent(path).appendingPathComponent(name)
                try Data(Self.content(file.durable, kept)).write(to: url)
                try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            }
        }
    }
}

/// SplitMix64: a seeded generator, so that a failing cut can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
