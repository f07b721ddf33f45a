import Foundation

/// The threads of this process, read from `/proc/self/task` (Linux): each thread's id and name (its
/// `comm`, at most 15 bytes). Empty where there is no `/proc`.
///
/// A client's threads are found by their ids, and their names checked: a thread takes the name of the
/// thread that creates it, so libdispatch workers started from a named loop thread carry its name too
/// (until they exit, seconds after their last work), without being the client's.
enum ProcessThreads {
    struct Thread: Hashable, CustomStringConvertible {
        let id: Int
        let name: String
        var description: String { "\(id) \(name)" }
    }

    /// Every thread now, in id order. A thread that ends while the folder is read is left out.
    static func all() -> [Thread] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { entry -> Thread? in
            guard let id = Int(entry),
                let comm = try? String(contentsOfFile: "/proc/self/task/\(entry)/comm", encoding: .utf8)
            else { return nil }
            return Thread(id: id, name: comm.trimmingCharacters(in: .newlines))
        }
        .sorted { $0.id < $1.id }
    }

    /// The threads whose name starts with `prefix`.
    static func named(_ prefix: String) -> [Thread] {
        all().filter { $0.name.hasPrefix(prefix) }
    }

    /// Those of the threads with kernel ids `ids` that are listed now.
    static func listed(_ ids: [Int32]) -> [Thread] {
        let wanted = Set(ids.map(Int.init))
        return all().filter { wanted.contains($0.id) }
    }
}
