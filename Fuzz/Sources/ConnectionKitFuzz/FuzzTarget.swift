import Foundation

/// Every fuzz target, by the name `FUZZ_TARGET` gives (and the folder of its seeds in Fuzz/Corpus/).
/// Each one hands untrusted bytes to one parser of ConnectionKit and checks what must hold whatever
/// the bytes: no trap, no hang, and the target's own invariants (a broken one traps, which libFuzzer
/// reports as a crash with the input that caused it).
enum FuzzTarget: String, CaseIterable, Sendable {
    case json
    case httpDate = "http-date"
    case resume
    case urlComposition = "url-composition"
    case multipart
    case credentialFile = "credential-file"
    case offlineQueueEntry = "offline-queue-entry"
    case requestReader = "request-reader"
    case inspectorRequestReader = "inspector-request-reader"
    case requestValidator = "request-validator"
    case curlCommand = "curl-command"
    case sseRetry = "sse-retry"
    case setCookie = "set-cookie"
    case httpCacheEntry = "http-cache-entry"

    /// The target `FUZZ_TARGET` names; the process ends with a message when it names none.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("FUZZ_TARGET must be one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()

    func run(_ input: Data) {
        switch self {
        case .json: JSONFuzz.run(input)
        case .httpDate: HTTPDateFuzz.run(input)
        case .resume: ResumeFuzz.run(input)
        case .urlComposition: URLCompositionFuzz.run(input)
        case .multipart: MultipartFuzz.run(input)
        case .credentialFile: CredentialFileFuzz.run(input)
        case .offlineQueueEntry: OfflineQueueEntryFuzz.run(input)
        case .requestReader: RequestReaderFuzz.run(input)
        case .inspectorRequestReader: RequestReaderFuzz.runInspector(input)
        case .requestValidator: RequestValidatorFuzz.run(input)
        case .curlCommand: CURLCommandFuzz.run(input)
        case .sseRetry: SSERetryFuzz.run(input)
        case .setCookie: SetCookieFuzz.run(input)
        case .httpCacheEntry: HTTPCacheEntryFuzz.run(input)
        }
    }
}

/// libFuzzer's entry point: called once per input, in one thread.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    FuzzTarget.selected.run(Data(bytes: bytes, count: count))
    return 0
}
