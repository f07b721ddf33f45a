import Foundation

@testable import ConnectionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The offline queue's file operations, performed for real and recorded: what was written to each file and
/// when it was synced, what was created, renamed or removed in each folder and when the folder was synced.
/// From the record, ``rebuild(upTo:seed:into:)`` makes the folder a power cut at any event could leave.
final class PowerLossRecorder: OfflineFileOperations, @unchecked Sendable {
    // Safe: `events` and `paths` are only touched under `lock`.

    /// One recorded change, or a mark the test adds (e.g. "write 7 acknowledged").
    enum Event {
        case create(path: String)
        case write(path: String, offset: Int, bytes: [UInt8])
        case sync(path: String)
        case rename(from: String, to: String)
        case unlink(path: String)
        case syncFolder(path: String)
        case mark(String)
    }

    private let lock = NSLock()
    private var events: [Event] = []
    private var paths: [Int32: String] = [:]
    private let system = POSIXOfflineFileOperations()
    /// The queue's folder: events are recorded with paths relative to it.
    let root: String
    /// When set, writes fail with this `errno` (a full disk) and record nothing.
    let failingWrites = Locked<Int32?>(nil)

    init(root: URL) {
        self.root = root.standardizedFileURL.path
    }

    var recorded: [Event] { locked { events } }

    func mark(_ label: String) {
        locked { events.append(.mark(label)) }
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    private func relative(_ path: String) -> String {
        let standard = URL(fileURLWithPath: path).standardizedFileURL.path
        return standard.hasPrefix(root + "/") ? String(standard.dropFirst(root.count + 1)) : standard
    }

    // MARK: - OfflineFileOperations

    func openForAppending(_ path: String) -> Int32 {
        let existed = access(path, F_OK) == 0
        let descriptor = system.openForAppending(path)
        if descriptor >= 0 {
            locked {
                paths[descriptor] = relative(path)
                if !existed { events.append(.create(path: relative(path))) }
            }
        }
        return descriptor
    }

    func write(_ data: Data, to descriptor: Int32, at offset: Int) -> Bool {
        if let code = failingWrites.withLock({ $0 }) {
            errno = code
            return false
        }
        guard system.write(data, to: descriptor, at: offset) else { return false }
        locked {
            if let path = paths[descriptor] { events.append(.write(path: path, offset: offset, bytes: [UInt8](data))) }
        }
        return true
    }

    func syncData(_ descriptor: Int32) -> Bool {
        guard system.syncData(descriptor) else { return false }
        locked {
            if let path = paths[descriptor] { events.append(.sync(path: path)) }
        }
        return true
    }

    func close(_ descriptor: Int32) {
        locked { paths[descriptor] = nil }
        system.close(descriptor)
    }

    func replace(_ target: URL, with data: Data, temporary: URL, syncFolder: Bool) throws {
        if let code = failingWrites.withLock({ $0 }) {
            throw POSIXFileError(message: "could not write \(temporary.path): \(String(cString: strerror(code)))")
        }
        try system.replace(target, with: data, temporary: temporary, syncFolder: syncFolder)
        let (from, to) = (relative(temporary.path), relative(target.path))
        locked {
            events += [.create(path: from), .write(path: from, offset: 0, bytes: [UInt8](data)), .sync(path: from)]
            events.append(.rename(from: from, to: to))
            if syncFolder { events.append(.syncFolder(path: relative(target.deletingLastPathComponent().path))) }
        }
    }

    func syncFolder(_ folder: URL) throws {
        try system.syncFolder(folder)
        locked { events.append(.syncFolder(path: relative(folder.path))) }
    }

    func rename(_ source: String, to target: String) -> Bool {
        guard system.rename(source, to: target) else { return false }
        locked { events.append(.rename(from: relative(source), to: relative(target))) }
        return true
    }

    func unlink(_ path: String) -> Bool {
        guard system.unlink(path) else { return false }
        locked { events.append(.unlink(path: relative(path))) }
        return true
    }
}
