#if canImport(CCurlShim)
    /// Which in-memory loop of a ``CurlTransport`` runs a transfer, and the per-host connection limit across
    /// those loops.
    ///
    /// Each loop's multi handle holds at most `perLoop` connections to one host, and a loop's transfers
    /// cannot use another loop's connections. So a transfer is admitted to a loop only while that loop runs
    /// fewer than `perLoop` transfers to its host; when none does, it is held here, in order, and the next
    /// transfer to that host that leaves a loop hands its place (and its connection) to the first one held.
    /// The whole limit (`perLoop` × loops) is then open to the requests of one host whichever loops their
    /// transfers ran on, and no loop's pool ever holds more than its share.
    ///
    /// Among the loops with room, a transfer goes to one that has an idle connection to its host, if any
    /// (requests sent one at a time stay on one connection), else to the least busy; the first on a tie.
    final class CurlAdmission: Sendable {
        private let state: Locked<State>
        /// How many transfers to one host a loop may run.
        let perLoop: Int

        /// What one loop has to one host.
        struct HostCount {
            /// Transfers running.
            var running = 0
            /// The most that ran at once: how many connections the loop's pool likely holds to the host.
            var connections = 0
        }

        private struct State {
            /// Per loop: its transfers by host key.
            var hosts: [[String: HostCount]]
            /// Per loop: its transfers in all.
            var load: [Int]
            /// Transfers waiting for room, by host key, first in first out.
            var held: [String: [CurlTransfer]] = [:]
            var stopped = false
        }

        /// Where a transfer stands.
        enum Place {
            /// Running on (or posted to) the loop of this index.
            case loop(Int)
            /// Waiting for room; it was taken out (a cancel withdraws it).
            case withdrawn
            /// Not admitted here, or already gone.
            case none
        }

        /// Pools of loops with no transfer to a host keep their count of its connections until this many
        /// hosts are known to a loop; then such entries are dropped.
        private static let rememberedHosts = 256

        init(loops: Int, perLoop: Int) {
            self.perLoop = perLoop
            state = Locked(State(hosts: Array(repeating: [:], count: loops), load: Array(repeating: 0, count: loops)))
        }

        /// The loop `transfer` runs on, or `nil` when it is held (or refused: `false` after ``stop()``).
        func admit(_ transfer: CurlTransfer) -> (loop: Int?, accepted: Bool) {
            let key = transfer.hostKey
            return state.withLock { state in
                guard !state.stopped else { return (nil, false) }
                guard state.held[key] == nil, let loop = Self.choose(for: key, in: state, perLoop: perLoop) else {
                    state.held[key, default: []].append(transfer)
                    return (nil, true)
                }
                Self.place(transfer, key: key, on: loop, in: &state)
                return (loop, true)
            }
        }

        /// Where `transfer` is; a held one is taken out (it will never run).
        func withdraw(_ transfer: CurlTransfer) -> Place {
            state.withLock { state in
                if transfer.admittedLoop >= 0 { return .loop(transfer.admittedLoop) }
                let key = transfer.hostKey
                guard let position = state.held[key]?.firstIndex(where: { $0 === transfer }) else { return .none }
                state.held[key]?.remove(at: position)
                if state.held[key]?.isEmpty == true { state.held[key] = nil }
                return .withdrawn
            }
        }

        /// The loop `transfer` was admitted to, while it is there.
        func loop(of transfer: CurlTransfer) -> Int? {
            state.withLock { _ in transfer.admittedLoop >= 0 ? transfer.admittedLoop : nil }
        }

        /// `transfer` left `loop` (ended, cancelled or refused); returns the held transfer that takes its
        /// place on that loop, if any. Called on that loop's thread, once per admitted transfer.
        func left(_ transfer: CurlTransfer, loop: Int) -> CurlTransfer? {
            let key = transfer.hostKey
            return state.withLock { state -> CurlTransfer? in
                guard transfer.admittedLoop == loop else { return nil }
                transfer.admittedLoop = CurlTransfer.notAdmitted
                state.load[loop] -= 1
                state.hosts[loop][key, default: HostCount()].running -= 1
                guard !state.stopped, let next = state.held[key]?.first else {
                    Self.forgetIdleHosts(of: loop, in: &state)
                    return nil
                }
                // In place: the queue is not copied.
                state.held[key]?.removeFirst()
                if state.held[key]?.isEmpty == true { state.held[key] = nil }
                Self.place(next, key: key, on: loop, in: &state)
                return next
            }
        }

        /// Refuses every later transfer and returns those held (they will never run).
        func stop() -> [CurlTransfer] {
            state.withLock { state in
                state.stopped = true
                defer { state.held = [:] }
                return state.held.values.flatMap { $0 }
            }
        }

        private static func place(_ transfer: CurlTransfer, key: String, on loop: Int, in state: inout State) {
            transfer.admittedLoop = loop
            state.load[loop] += 1
            var count = state.hosts[loop][key] ?? HostCount()
            count.running += 1
            count.connections = max(count.connections, count.running)
            state.hosts[loop][key] = count
        }

        /// A loop with room for `key`: one with an idle connection to it, else the least busy; the first
        /// on a tie. `nil` when every loop runs `perLoop` transfers to the host.
        private static func choose(for key: String, in state: State, perLoop: Int) -> Int? {
            var best: (loop: Int, idle: Bool, load: Int)?
            for loop in state.load.indices {
                let count = state.hosts[loop][key] ?? HostCount()
                guard count.running < perLoop else { continue }
                let candidate = (loop: loop, idle: count.running < count.connections, load: state.load[loop])
                guard let current = best else {
                    best = candidate
                    continue
                }
                let better = candidate.idle == current.idle ? candidate.load < current.load : candidate.idle
                if better { best = candidate }
            }
            return best?.loop
        }

        private static func forgetIdleHosts(of loop: Int, in state: inout State) {
            guard state.hosts[loop].count > rememberedHosts else { return }
            state.hosts[loop] = state.hosts[loop].filter { $0.value.running > 0 }
        }
    }
#endif
