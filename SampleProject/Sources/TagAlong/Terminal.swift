import ConnectionKit
import Foundation

/// Output for the sample: plain lines on standard output, errors on standard error, and a progress bar
/// redrawn in place.
enum Terminal {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("error: " + text + "\n").utf8))
    }

    /// A step of the scripted demo.
    static func step(_ number: Int, _ title: String) {
        line("\n[\(number)] \(title)")
    }

    /// Draws `[#########...........]  45%  115/256 KiB` over the current line (`\r`, no newline).
    static func progressBar(_ progress: TransferProgress, width: Int = 30) {
        let received = progress.completedBytes / 1024
        let line: String
        if let fraction = progress.fractionCompleted, let expected = progress.expectedBytes {
            let filled = Int((fraction * Double(width)).rounded(.down))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            let percent = String(Int((fraction * 100).rounded(.down))).leftPadded(to: 3)
            line = "  [\(bar)] \(percent)%  \(received)/\(expected / 1024) KiB"
        } else {
            line = "  \(received) KiB"
        }
        FileHandle.standardOutput.write(Data(("\r" + line).utf8))
    }

    /// Ends a progress bar's line.
    static func endProgressBar() {
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}

extension String {
    /// The string with spaces in front, to `width` characters.
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
