import ConnectionKit
import Foundation

/// The app's commands. Each returns whether it succeeded; failures were already reported by
/// `TagAlongRequest.handleConnectionError(_:)`.
enum Commands {
    /// `events`: lists the events.
    static func events() async -> Bool {
        let request = FetchEvents()
        guard let events = try? await request.value() else { return false }
        switch request.responseSource {
        case .staleCache?: Terminal.line("Events (from the cache: the server cannot be reached; may be out of date):")
        case .cache?: Terminal.line("Events (from the cache):")
        case .revalidated?: Terminal.line("Events (from the cache, confirmed unchanged by the server):")
        default: Terminal.line("Events:")
        }
        for event in events {
            Terminal.line("  \(event.date)  \(event.name)")
        }
        return !events.isEmpty
    }

    /// `follow`: prints the first `count` check-ins of the live feed, then stops following (leaving the
    /// loop cancels the request).
    static func follow(count: Int) async -> Bool {
        Terminal.line("Following the live check-ins:")
        var seen = 0
        do {
            for try await checkIn in FollowCheckIns().elements() {
                seen += 1
                Terminal.line("  #\(checkIn.lastEventID)  \(checkIn.data)")
                if seen == count { break }
            }
        } catch {
            return false
        }
        return seen == count
    }

    /// `login`: logs in and keeps the token. A wrong name or password gets the generic message that
    /// ConnectionKit gives every 401/403, never which of the two was wrong.
    static func login(user: String, password: String) async -> Bool {
        do {
            let session = try await LogIn(user: user, password: password).value()
            try AppConfiguration.shared.setToken(session.token)
            Terminal.line("Logged in as \(user); the token is in the credential store.")
            return true
        } catch let error as CredentialStoreError {
            Terminal.error("could not keep the token: \(error.localizedDescription)")
            return false
        } catch {
            return false  // already reported by TagAlongRequest
        }
    }

    /// `post`: posts a micropost as the logged-in user, through the offline queue: when the server cannot
    /// be reached the post is stored on disk and delivered later, instead of failing.
    static func post(text: String, via outbox: OfflineQueue) async -> PostOutcome {
        guard AppConfiguration.shared.token() != nil else {
            Terminal.error("log in first: TagAlong login --user U --password P")
            return .failed
        }
        let outcome = await Once.wait(timeout: 60, orElse: PostOutcome.failed) { once in
            let request = CreateMicropost(text: text)
            request.completionHandler = { saved in once.resume(.posted(saved)) }
            request.failureHandler = { _ in once.resume(.failed) }  // reported by TagAlongRequest
            request.start(via: outbox) { operation in once.resume(.queued(operation)) }
        }
        switch outcome {
        case .posted(let saved):
            Terminal.line("Posted micropost #\(saved.id ?? 0): \(saved.text)")
        case .queued:
            let waiting = outbox.pending.count
            Terminal.line(
                "The server cannot be reached: the post is queued (\(waiting) waiting), to be delivered later.")
        case .failed:
            break
        }
        return outcome
    }

    /// `download`: saves the flyer to `destination` with a progress bar. With `--debug`, the registry is
    /// dumped once halfway, while the download is live.
    static func download(to destination: URL, debug: Bool = false) async -> Bool {
        let download = DownloadFlyer(to: destination)
        let dumped = Mutex(false)
        download.progressHandler = { progress in
            guard progress.direction == .download else { return }
            Terminal.progressBar(progress)
            guard debug, (progress.fractionCompleted ?? 0) >= 0.5 else { return }
            let isFirst = dumped.update { done in
                defer { done = true }
                return !done
            }
            if isFirst { Terminal.line("\n" + ConnectionRegistry.shared.debugDump()) }
        }
        do {
            let file = try await download.value()
            Terminal.endProgressBar()
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
            Terminal.line("Saved \(size.map { "\($0) bytes" } ?? "the flyer") to \(file.path)")
            return size != nil
        } catch {
            Terminal.endProgressBar()
            return false
        }
    }

    /// `--debug`: what the registry holds right now (a table, secrets redacted).
    static func printRegistry() {
        Terminal.line("\n" + ConnectionRegistry.shared.debugDump())
    }
}
