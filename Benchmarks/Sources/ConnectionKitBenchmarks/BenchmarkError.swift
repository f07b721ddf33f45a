import Foundation

/// Why a benchmark could not produce a figure: the run stops loudly rather than print a wrong table.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
