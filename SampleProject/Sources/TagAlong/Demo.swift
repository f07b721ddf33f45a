import ConnectionKit
import Foundation

/// The scripted end-to-end run (the default command): every step must succeed, or the app exits 1.
struct Demo {
    let server: DemoServer
    let outbox: OfflineQueue
    let workDirectory: URL
    let debug: Bool
    /// Seconds to wait after each step (`--inspect`: time to watch the requests in the inspector).
    var pauseBetweenSteps: TimeInterval = 0

    /// Runs every step in order and returns whether all succeeded.
    func run() async -> Bool {
        var failures: [String] = []
        func check(_ passed: Bool, _ step: String) async {
            Terminal.line(passed ? "  ok" : "  FAILED: \(step)")
            if !passed { failures.append(step) }
            if pauseBetweenSteps > 0 { try? await Task.sleep(for: .seconds(pauseBetweenSteps)) }
        }

        Terminal.step(1, "List the events")
        await check(await Commands.events(), "events")

        Terminal.step(2, "Log in with a wrong password (the message must not say which credential was wrong)")
        await check(await loginFailsGenerically(), "login with a wrong password")

        Terminal.step(3, "Log in as \(DemoServer.user)")
        await check(await Commands.login(user: DemoServer.user, password: DemoServer.password), "login")

        Terminal.step(4, "Post a micropost")
        await check(await postsNow(), "post")

        Terminal.step(5, "List the events again: the stored list, confirmed unchanged by the server (304)")
        await check(await eventsAreRevalidated(), "events revalidated")

        Terminal.step(6, "Post while the server is down: queued on disk, delivered when it is back")
        await check(await offlinePostIsDeliveredLater(), "offline post")

        Terminal.step(7, "Download the event flyer")
        let destination = workDirectory.appendingPathComponent("flyer.pdf")
        await check(
            await Commands.download(to: destination, debug: debug) && flyerIsIntact(at: destination), "download")

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

    private func postsNow() async -> Bool {
        if case .posted = await Commands.post(text: "Who is up for climbing on Saturday?", via: outbox) { return true }
        return false
    }

    private func offlinePostIsDeliveredLater() async -> Bool {
        let text = "Posted from the train, with no signal"
        let port = server.port
        server.stop()
        Terminal.line("  the demo server is down")
        guard case .queued = await Commands.post(text: text, via: outbox) else { return false }
        // Offline first: the list read in step 1 answers, marked as from the cache.
        guard await eventsComeFromTheCache() else { return false }
        do {
            try server.restart(onPort: port)
        } catch {
            Terminal.error("could not restart the demo server on port \(port): \(error)")
            return false
        }
        Terminal.line("  the demo server is back on port \(port)")
        let outbox = self.outbox
        let delivered = await Once.wait(timeout: 30, orElse: false) { once in
            outbox.deliveredHandler = { _, _ in once.resume(true) }
            outbox.setReachable(true)  // what a reachability monitor would say: attempt now, not in 10 s
        }
        outbox.deliveredHandler = nil
        // Ask the API, as a second device would.
        let posts = (try? await FetchMicroposts().value()) ?? []
        let arrived = posts.contains { $0.text == text }
        Terminal.line(arrived ? "  delivered: GET microposts.json lists it" : "  the queued post did not arrive")
        return delivered && arrived
    }

    /// Step 5: a read of the stale list is a conditional request, answered `304` and shown from the cache.
    private func eventsAreRevalidated() async -> Bool {
        let request = FetchEvents()
        guard let events = try? await request.value() else { return false }
        Terminal.line("  \(events.count) events, source: \(request.responseSource?.rawValue ?? "none")")
        return events.count == DemoServer.events.count && request.responseSource == .revalidated
    }

    /// With the server down, the events list still shows, from the cache, and says so.
    private func eventsComeFromTheCache() async -> Bool {
        let request = FetchEvents()
        guard let events = try? await request.value() else {
            Terminal.line("  the events list did not show while the server was down")
            return false
        }
        Terminal.line("  the events list still shows, from the cache: \(events.map(\.name).joined(separator: ", "))")
        return events.count == DemoServer.events.count && request.responseSource == .staleCache
    }

    private func flyerIsIntact(at file: URL) -> Bool {
        (try? Data(contentsOf: file)) == DemoServer.flyer
    }
}
