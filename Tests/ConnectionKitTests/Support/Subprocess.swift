import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`: the part of Foundation's `Process` the tests use, without
/// `Process.run()`. On Linux, Foundation's `run()` lists `/proc/self/fd` by copying each `readdir` entry
/// whole (256 bytes, however short the record), which reads past glibc's buffer: it crashed the test
/// process with SIGSEGV (`__memmove_avx_unaligned_erms` in `Process.run()`) when that buffer ended at a
/// page boundary, and AddressSanitizer reports it on every call (fixed in later swift-corelibs-foundation).
///
/// The child gets the three standard streams given (a `Pipe`, a `FileHandle`, or this process's when
/// `nil`) and no other descriptor of this process: glibc's `posix_spawn_file_actions_addclosefrom_np`
/// closes them all, so a child never holds another test's pipe open. A thread of its own waits for the
/// child's exit.
#if canImport(Glibc)
    final class Subprocess: @unchecked Sendable {
        // Safe: the settings are set before `run()` and read only by it; the exit state lives under `condition`.
        var executableURL: URL?
        var arguments: [String] = []
        /// The whole environment of the child; this process's when `nil`.
        var environment: [String: String]?
        var standardInput: Any?
        var standardOutput: Any?
        var standardError: Any?
        /// Called on the waiting thread once the child exited.
        var terminationHandler: (@Sendable (Subprocess) -> Void)?

        /// How the child ended.
        enum TerminationReason { case exit, uncaughtSignal }

        private let condition = NSCondition()
        private var pid: pid_t = 0
        private var exited = false
        private var status: Int32 = 0
        private var reason = TerminationReason.exit

        /// The child's process identifier; 0 before `run()`.
        var processIdentifier: Int32 { locked { $0.pid } }

        /// Whether the child was started and has not exited yet.
        var isRunning: Bool { locked { $0.pid != 0 && !$0.exited } }

        /// The exit status, or the signal that ended the child.
        var terminationStatus: Int32 { locked { $0.status } }

        /// Whether the child exited or a signal ended it.
        var terminationReason: TerminationReason { locked { $0.reason } }

        /// A spawn that failed: what `posix_spawn` returned.
        struct SpawnError: Error, CustomStringConvertible {
            let path: String
            let code: Int32
            var description: String { "posix_spawn \(path): \(String(cString: strerror(code)))" }
        }

        /// Starts the child; throws when it cannot be started.
        func run() throws {
            guard let path = executableURL?.path else { throw SpawnError(path: "(no executable)", code: ENOENT) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            // `FileHandle.nullDevice` has no descriptor of its own: the child gets /dev/null, opened here.
            var opened: [Int32] = []
            defer {
                for descriptor in opened { close(descriptor) }
            }
            for (target, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
                guard var descriptor = Self.descriptor(of: stream, forReading: target == 0) else { continue }
                if descriptor < 0 {
                    descriptor = open("/dev/null", O_RDWR | O_CLOEXEC)
                    opened.append(descriptor)
                }
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            }
            Self.closeTheRest(&actions)
            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            let envp =
                (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                for pointer in argv + envp { free(pointer) }
            }
            // As Foundation's `Process` does: the child starts with no signal blocked and every signal at its
            // default action, whatever the spawning thread blocks (Dispatch's threads block most) or this
            // process ignores (SIGPIPE).
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t()
            var all = sigset_t()
            sigemptyset(&none)
            sigfillset(&all)
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &all)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            var child: pid_t = 0
            let result = posix_spawn(&child, path, &actions, &attributes, argv, envp)
            guard result == 0 else { throw SpawnError(path: path, code: result) }
            // As Foundation's `Process` does: this process's copy of the child's end of each pipe is closed, so
            // that reading the other end sees the end when the child exits.
            for (stream, childReads) in [(standardInput, true), (standardOutput, false), (standardError, false)] {
                guard let pipe = stream as? Pipe else { continue }
                try? (childReads ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
            }
            let started = child
            locked { $0.pid = started }
            let thread = Thread { [self] in waitForExit(of: started) }
            thread.name = "Subprocess \(started)"
            thread.start()
        }

        /// Blocks until the child exited.
        func waitUntilExit() {
            condition.lock()
            defer { condition.unlock() }
            while pid != 0 && !exited { condition.wait() }
        }

        /// Sends SIGTERM to the child.
        func terminate() {
            if isRunning { kill(processIdentifier, SIGTERM) }
        }

        private func waitForExit(of child: pid_t) {
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) < 0 && errno == EINTR {}
            // The wait-status layout of <sys/wait.h>: the low 7 bits are the signal, 0 for a normal exit.
            let signal = raw & 0x7f
            locked(waking: true) { state in
                state.exited = true
                (state.reason, state.status) = signal == 0 ? (.exit, (raw >> 8) & 0xff) : (.uncaughtSignal, signal)
            }
            terminationHandler?(self)
        }

        /// Runs `body` under the lock; `waking`: then wakes ``waitUntilExit()``'s waiters (the child exited).
        private func locked<Result>(waking: Bool = false, _ body: (Subprocess) -> Result) -> Result {
            condition.lock()
            defer {
                if waking { condition.broadcast() }
                condition.unlock()
            }
            return body(self)
        }

        /// The descriptor a stream gives the child: a pipe's read end for its input, write end for its output.
        private static func descriptor(of stream: Any?, forReading: Bool) -> Int32? {
            switch stream {
            case let pipe as Pipe:
                return forReading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
            case let handle as FileHandle:
                return handle.fileDescriptor
            default:
                return nil
            }
        }

        /// Closes every descriptor above the standard three in the child: glibc 2.34's
        /// `posix_spawn_file_actions_addclosefrom_np`, looked up at run time (the Swift module does not export
        /// it).
        private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return }
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
    }
#else
    /// Foundation's `Process` reads `/proc/self/fd` on Linux only: elsewhere it is the subprocess.
    typealias Subprocess = Process
#endif
