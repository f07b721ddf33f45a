import Foundation

/// Output for the sample: plain lines on standard output, errors on standard error.
enum Terminal {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("error: " + text + "\n").utf8))
    }
}
