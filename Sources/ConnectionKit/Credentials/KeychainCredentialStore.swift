#if canImport(Security)
    import Foundation
    import Security

    /// A ``CredentialStore`` in the Keychain (Apple platforms only): one generic-password item per account,
    /// under ``service``.
    ///
    /// Items are readable only while the device is unlocked (`kSecAttrAccessibleAfterFirstUnlock`, so background
    /// refreshes work) and never leave the device (`ThisDeviceOnly`).
    public final class KeychainCredentialStore: CredentialStore {
        /// The Keychain service the items are filed under, e.g. your app's bundle identifier.
        public let service: String

        /// An optional access group to share the items between apps of one team. Default `nil`.
        public let accessGroup: String?

        /// Creates a store for `service` (and `accessGroup`, default `nil`).
        public init(service: String, accessGroup: String? = nil) {
            self.service = service
            self.accessGroup = accessGroup
        }

        /// The credential stored for `account`, or `nil`.
        public func credential(for account: String) throws -> String? {
            var query = baseQuery(account: account)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw CredentialStoreError(.keychain(status: status)) }
            guard let data = result as? Data, let credential = String(data: data, encoding: .utf8) else {
                throw CredentialStoreError(.keychain(status: errSecDecode))
            }
            return credential
        }

        /// Stores `credential` for `account`, updating the item when it exists.
        public func setCredential(_ credential: String, for account: String) throws {
            let data = Data(credential.utf8)
            let query = baseQuery(account: account)
            let update: [String: Any] = [kSecValueData as String: data]
            let status = SecItemUpdate(query as CFDictionary, update as CFDictionary)
            if status == errSecSuccess { return }
            guard status == errSecItemNotFound else { throw CredentialStoreError(.keychain(status: status)) }
            var item = query
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw CredentialStoreError(.keychain(status: added)) }
        }

        /// Removes the credential for `account`; a missing one is not an error.
        public func deleteCredential(for account: String) throws {
            let status = SecItemDelete(baseQuery(account: account) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw CredentialStoreError(.keychain(status: status))
            }
        }

        private func baseQuery(account: String) -> [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }
    }
#endif
