import Foundation

/// One benchmark: produces its table rows. Each lives in a file of its own.
protocol Benchmark {
    /// Short name for `--only`, e.g. `sequential`.
    static var name: String { get }
    static func run(_ options: Options) throws -> [Row]
}
