import ConnectionKit
import Foundation

/// The scripted end-to-end run (the default command): every step must succeed, or the app exits 1.
struct Demo {
    let server: DemoServer
    let workDirectory: URL
    let debug: Bool

    /// Runs every step in order and returns whether all succeeded.
    func run() async -> Bool {
        var failures: [String] = []
        func check(_ passed: Bool, _ step: String) {
            Terminal.line(passed ? "  ok" : "  FAILED: \(step)")
            if !passed { failures.append(step) }
        }

        Terminal.step(1, "List the events")
        check(await Commands.events(), "events")

        Terminal.step(2, "Log in with a wrong password (the message must not say which credential was wrong)")
        check(await loginFailsGenerically(), "login with a wrong password")

        Terminal.step(3, "Log in as \(DemoServer.user)")
        check(await Commands.login(user: DemoServer.user, password: DemoServer.password), "login")

        Terminal.step(4, "Post a micropost")
        check(await Commands.post(text: "Who is up for climbing on Saturday?"), "post")

        Terminal.step(5, "Download the event flyer")
        let destination = workDirectory.appendingPathComponent("flyer.pdf")
        check(await Commands.download(to: destination, debug: debug) && flyerIsIntact(at: destination), "download")

        if failures.isEmpty {
            Terminal.line("\nDemo complete: every step passed.")
        } else {
            Terminal.error("demo failed: \(failures.joined(separator: ", "))")
        }
        return failures.isEmpty
    }

    private func loginFailsGenerically() async -> Bool {
        do {
            _ = try await LogIn(user: DemoServer.user, password: "wrong-password").value()
            Terminal.line("  the server accepted a wrong password")
            return false
        } catch let error as ConnectionError {
            let message = error.localizedDescription
            let generic = error.isAuthenticationFailure && !message.contains("password") && !message.contains("user")
            Terminal.line("  the error above is expected: a 401 reads the same for a wrong name and a wrong password")
            return generic
        } catch {
            return false
        }
    }

    private func flyerIsIntact(at file: URL) -> Bool {
        (try? Data(contentsOf: file)) == DemoServer.flyer
    }
}
