/// A failure raised by test helpers, with a message that says what was expected.
struct TestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
