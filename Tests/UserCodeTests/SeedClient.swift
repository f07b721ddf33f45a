// The app superclass of docs/client-and-authorization.md, as a user writes it in their own module:
// `import ConnectionKit` (not `@testable`), Swift 6 language mode, warnings as errors. FailureHandlingTests and
// UserCodeTests exercise it. Keep it in step with the article: each block below is one snippet of it.
import ConnectionKit
import Foundation

// MARK: - Snippet: the app's errors

/// What the app's screens see when a call fails.
enum SeedError: Error, Equatable {
    /// The API refused the call and said why, in its error body.
    case rejected(code: String, message: String)
    /// The credentials were refused (401 or 403) and could not be renewed: show the sign-in screen.
    case signInRequired
    /// The call was cancelled.
    case cancelled
    /// Anything else: no network, a timeout, an unexpected answer.
    case unavailable(String)
}

/// The API's error body: `{"error": {"code": "name_taken", "message": "That name is taken."}}`.
struct SeedErrorBody: Decodable {
    struct Detail: Decodable {
        let code: String
        let message: String
    }
    let error: Detail
}

// MARK: - Snippet: the environment

/// Where the API lives, where its credentials are kept, and the one refresher all requests share.
final class SeedEnvironment: Sendable {
    let baseURL: URL
    let credentials: any CredentialStore
    /// Every failure of every request ends up here.
    let report: @Sendable (_ request: String, _ error: any Error) -> Void
    /// Shared by all the app's requests, so fifty 401s at once cause one renewal.
    let refresher: AuthorizationRefresher

    init(
        baseURL: URL, credentials: any CredentialStore,
        report: @escaping @Sendable (_ request: String, _ error: any Error) -> Void
    ) {
        self.baseURL = baseURL
        self.credentials = credentials
        self.report = report
        self.refresher = AuthorizationRefresher {
            guard let refreshToken = try credentials.credential(for: "refresh") else {
                throw SeedError.signInRequired
            }
            let renewed = try await RenewToken(baseURL: baseURL, refreshToken: refreshToken).value()
            try credentials.setCredential(renewed.token, for: "token")
        }
    }
}

// MARK: - Snippet: the superclass

/// The app's superclass: every endpoint inherits its base URL, headers, authorization, refresh, retries
/// and failure handling, and overrides only what is its own.
class SeedRequest<Output: Decodable & Sendable>: JSONConnectionRequest<Output>, @unchecked Sendable {
    // Safe: immutable after init.
    let environment: SeedEnvironment

    init(environment: SeedEnvironment) {
        self.environment = environment
        super.init()
    }

    override var baseURL: URL? { environment.baseURL }

    override var defaultHeaderFields: [String: String] {
        DefaultHeaders.standard(appName: "Seed", appVersion: "2.1")
    }

    /// The seed app sent its token as the Basic user name; read at send time, so a renewed token is used
    /// by the next attempt.
    override var authorization: Authorization? {
        guard let token = try? environment.credentials.credential(for: "token") else { return nil }
        return .tokenAsUsername(token)
    }

    override var authorizationRefresher: AuthorizationRefresher? { environment.refresher }

    override var retryPolicy: RetryPolicy { .retryOnTimeout(times: 2) }

    /// One place to turn every failure into the app's own error.
    override func parseError(_ error: ConnectionError) -> any Error {
        if error.isCancelled { return SeedError.cancelled }
        if error.isAuthenticationFailure { return SeedError.signInRequired }
        if let body = error.responseBody, let api = try? JSONDecoder().decode(SeedErrorBody.self, from: body) {
            return SeedError.rejected(code: api.error.code, message: api.error.message)
        }
        return SeedError.unavailable(error.localizedDescription)
    }

    /// One place to report every failure; `super` still calls the failure handler (and ends `value()`).
    override func handleConnectionError(_ error: any Error) {
        environment.report(typeName, error)
        super.handleConnectionError(error)
    }
}

// MARK: - Snippet: endpoints

struct Event: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

struct EventDraft: Encodable, Sendable {
    let name: String
}

/// `GET events.json?page=…`
final class FetchEvents: SeedRequest<[Event]>, @unchecked Sendable {
    // Safe: immutable after init.
    let page: Int

    init(environment: SeedEnvironment, page: Int = 1) {
        self.page = page
        super.init(environment: environment)
    }

    override var path: String { "events.json" }
    override var requestBody: RequestBody? { .query([URLQueryItem(name: "page", value: String(page))]) }
}

/// `POST events.json` with the draft as JSON.
final class CreateEvent: SeedRequest<Event>, @unchecked Sendable {
    // Safe: immutable after init.
    let draft: EventDraft

    init(environment: SeedEnvironment, draft: EventDraft) {
        self.draft = draft
        super.init(environment: environment)
    }

    override var httpMethod: HTTPMethod { .post }
    override var path: String { "events.json" }
    override var requestBody: RequestBody? { .json(draft) }
}

/// `POST events/<id>/photos` as multipart: a caption and a photo streamed from disk.
final class UploadPhoto: SeedRequest<JSON>, @unchecked Sendable {
    // Safe: immutable after init.
    let eventID: Int
    let photo: URL

    init(environment: SeedEnvironment, eventID: Int, photo: URL) {
        self.eventID = eventID
        self.photo = photo
        super.init(environment: environment)
    }

    override var httpMethod: HTTPMethod { .post }
    override var path: String { "events/\(eventID)/photos" }
    override var timeoutInterval: TimeInterval { 120 }
    override var requestBody: RequestBody? {
        var form = MultipartForm()
        form.addField(name: "caption", value: "From the app")
        form.addFile(name: "photo", fileURL: photo, contentType: "image/jpeg")
        return .multipart(form)
    }
}

// MARK: - Snippet: renewing the token

struct RenewedToken: Decodable, Sendable {
    let token: String
}

/// `POST auth/renew` with the refresh token. It is not a `SeedRequest`: a renewal must never wait for
/// a renewal (it would wait for itself).
final class RenewToken: JSONConnectionRequest<RenewedToken>, @unchecked Sendable {
    // Safe: immutable after init.
    let base: URL
    let refreshToken: String

    init(baseURL: URL, refreshToken: String) {
        self.base = baseURL
        self.refreshToken = refreshToken
        super.init()
        // No screen waits for it: its ending need not go through the main queue.
        callbackQueue = DispatchQueue(label: "Seed.renew")
    }

    override var baseURL: URL? { base }
    override var path: String { "auth/renew" }
    override var httpMethod: HTTPMethod { .post }
    override var requestBody: RequestBody? { .form([URLQueryItem(name: "refresh_token", value: refreshToken)]) }
}

// MARK: - Snippet: usage

/// The production environment; credentials in a 0600 file under Application Support.
func makeProductionEnvironment() throws -> SeedEnvironment {
    guard let baseURL = URL(string: "https://api.seed.example/v2/") else { throw URLError(.badURL) }
    let support = try FileManager.default.url(
        for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
    return SeedEnvironment(
        baseURL: baseURL,
        credentials: FileCredentialStore(fileURL: support.appendingPathComponent("Seed/credentials.json")),
        report: { request, error in print("\(request) failed: \(error)") })
}

func showEvents(environment: SeedEnvironment) async {
    // Callback style: handlers run on `callbackQueue` (the main queue by default).
    let fetch = FetchEvents(environment: environment, page: 2)
    fetch.completionHandler = { events in print("\(events.count) events") }
    fetch.failureHandler = { error in print("failed: \(error)") }  // already a SeedError, already reported
    fetch.start()

    // async style: throws the same mapped error.
    do {
        let event = try await CreateEvent(environment: environment, draft: EventDraft(name: "Launch")).value()
        print("created event \(event.id)")
    } catch SeedError.rejected(_, let message) {
        print(message)  // "That name is taken."
    } catch SeedError.signInRequired {
        print("Please sign in again.")
    } catch {
        print(error)
    }
}

// MARK: - Snippet: more bodies

/// `GET events/search?q=jazz%20%26%20blues`
final class SearchEvents: SeedRequest<[Event]>, @unchecked Sendable {
    // Safe: no stored state of its own.
    override var path: String { "events/search" }
    override var requestBody: RequestBody? { .query([URLQueryItem(name: "q", value: "jazz & blues")]) }
}

/// `POST auth/sign-in` with a form body; it sends no authorization (the credentials are the body).
final class SignIn: SeedRequest<RenewedToken>, @unchecked Sendable {
    // Safe: immutable after init.
    let user: String
    let password: String

    init(environment: SeedEnvironment, user: String, password: String) {
        self.user = user
        self.password = password
        super.init(environment: environment)
    }

    override var httpMethod: HTTPMethod { .post }
    override var path: String { "auth/sign-in" }
    override var authorization: Authorization? { nil }
    override var authorizationRefresher: AuthorizationRefresher? { nil }
    override var requestBody: RequestBody? {
        .form([URLQueryItem(name: "user", value: user), URLQueryItem(name: "password", value: password)])
    }
}

// MARK: - Snippet: credential store

/// Keeps the token; a corrupt file is removed so that the user simply signs in again.
func storedToken(in store: FileCredentialStore) throws -> String? {
    do {
        return try store.credential(for: "token")
    } catch let error as CredentialStoreError {
        guard case .corruptFile = error.kind else { throw error }
        try FileManager.default.removeItem(at: store.fileURL)
        return nil
    }
}
