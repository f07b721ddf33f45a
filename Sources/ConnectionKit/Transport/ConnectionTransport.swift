import Foundation

/// What moves a request's bytes: URLSession (the default, on every platform) or, on Linux, ConnectionKit's
/// own transport on libcurl. Nothing else in the API changes with the transport.
///
/// Choose libcurl for the whole process in one line, early (before the first request starts):
///
/// ```swift
/// ConnectionTransport.default = try .libcurl()
/// ```
///
/// or for some classes only, by overriding ``AnyConnectionRequest/transport`` (in an app superclass,
/// say). See `docs/linux.md` for when libcurl is the better choice.
public struct ConnectionTransport: Sendable, CustomStringConvertible {
    let implementation: any Transport

    /// `"URLSession"` or `"libcurl"`.
    public let name: String

    /// URLSession (FoundationNetworking on Linux): the default.
    public static let urlSession = ConnectionTransport(implementation: URLSessionTransport.shared, name: "URLSession")

    /// ConnectionKit's transport on the system's libcurl (Linux only), found at run time: no build
    /// setting, no package to add. Requires libcurl 7.68 or later (`libcurl.so.4`, which
    /// FoundationNetworking itself uses).
    ///
    /// Every call returns the same transport: one event-loop thread per core (up to four) for bodies kept
    /// in memory and one for bodies saved to a file, up to 64 connections per host across them.
    /// - Throws: ``UnavailableError`` when libcurl cannot be loaded or is too old, and on platforms
    ///   other than Linux. URLSession keeps working.
    public static func libcurl() throws(UnavailableError) -> ConnectionTransport {
        #if canImport(CCurlShim)
            return ConnectionTransport(implementation: try CurlTransport.shared.get(), name: "libcurl")
        #else
            throw UnavailableError(reason: "the libcurl transport is available on Linux only")
        #endif
    }

    /// The transport of every request whose class does not override ``AnyConnectionRequest/transport``.
    /// Default ``urlSession``. A change applies to transfers that start afterwards.
    public static var `default`: ConnectionTransport {
        get { processDefault.withLock { $0 } }
        set { processDefault.withLock { $0 = newValue } }
    }

    /// The transport's name.
    public var description: String { name }

    private static let processDefault = Locked(initialDefault())

    /// URLSession, unless the test suite asks for libcurl (`CONNECTIONKIT_TEST_TRANSPORT=libcurl`), so
    /// that the same tests run once per transport. Not a setting for apps: set ``default`` instead.
    private static func initialDefault() -> ConnectionTransport {
        guard ProcessInfo.processInfo.environment["CONNECTIONKIT_TEST_TRANSPORT"] == "libcurl" else {
            return .urlSession
        }
        do {
            return try libcurl()
        } catch {
            FileHandle.standardError.write(Data("CONNECTIONKIT_TEST_TRANSPORT=libcurl: \(error)\n".utf8))
            return .urlSession
        }
    }

    /// Why the libcurl transport cannot be used in this process.
    public struct UnavailableError: Error, Sendable, CustomStringConvertible {
        /// A sentence saying why: libcurl not found, a missing entry point, a version too old, or the platform.
        public let reason: String

        /// The reason, prefixed with what failed.
        public var description: String { "the libcurl transport is unavailable: \(reason)" }
    }
}
