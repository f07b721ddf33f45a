import ConnectionKit
import Foundation

/// The credential file of a `FileCredentialStore`, as found on disk: any bytes give a credential,
/// `nil` or a `CredentialStoreError`, never a trap.
enum CredentialFileFuzz {
    static let file = FuzzScratch.folder.appendingPathComponent("credentials.json")

    static func run(_ input: Data) {
        guard (try? input.write(to: file)) != nil else { fatalError("cannot write \(file.path)") }
        let store = FileCredentialStore(fileURL: file)
        do {
            _ = try store.credential(for: "account")
        } catch is CredentialStoreError {
            return
        } catch {
            fatalError("the credential file gave an error that is not a CredentialStoreError: \(error)")
        }
    }
}
