#if canImport(CCurlShim)
    import CCurlShim
    import Foundation

    /// A ``TLSConfiguration`` resolved into libcurl's terms for one transfer: files by path, bytes as
    /// blobs, the passphrase read from its store. Made on the caller's thread (it may read files and a
    /// credential store), applied on the loop thread.
    struct CurlTLSSettings: Sendable {
        var verify = true
        /// Whether the CA options below replace libcurl's defaults.
        var setsCA = false
        var caFile: String?
        var caFolder: String?
        var caBlob: Data?
        /// `sha256//<base64>;…`
        var pinnedKeys: String?
        var certificateFile: String?
        var certificateBlob: Data?
        var keyFile: String?
        var keyBlob: Data?
        /// Secret: never printed, zeroed in the C copy once libcurl has taken its own.
        var keyPassphrase: String?
        var minimumVersion = TLSConfiguration.Version.tls12

        /// The settings of ``TLSConfiguration/default``: the system store, TLS 1.2 or later.
        static let system: CurlTLSSettings = (try? CurlTLSSettings(.default)) ?? CurlTLSSettings()

        private init() {}

        /// Resolves `tls`; throws a ``ConnectionError`` (`.tls` or `.invalidRequest`) before anything is sent.
        init(_ tls: TLSConfiguration) throws(ConnectionError) {
            verify = tls.verifiesServer
            minimumVersion = tls.minimumVersion
            try resolveTrust(tls.trust)
            if !tls.pinnedPublicKeys.isEmpty {
                pinnedKeys = try Self.pinList(tls.pinnedPublicKeys)
            }
            if let client = tls.clientCertificate {
                try resolveClientCertificate(client)
                bindCertificateToKey()
            }
        }

        // MARK: - Resolving

        private mutating func resolveTrust(_ trust: TLSConfiguration.Trust) throws(ConnectionError) {
            switch trust {
            case .system:
                // The bundle alone, without libcurl's default folder: libcurl (7.87 and later, OpenSSL)
                // then keeps the parsed store in its multi handle instead of parsing ~140 certificates
                // for every new connection (about 40 ms each here). The distributions generate the
                // bundle and the folder from the same certificates (update-ca-certificates, update-ca-trust).
                // A libcurl from elsewhere may point at a file this distribution does not have: the
                // bundle found here is named either way. Without any bundle, libcurl's defaults stay.
                guard let bundle = SystemTrustStore.bundle else { return }
                setsCA = true
                caFile = bundle
            case .systemPlus(let extra):
                guard let system = SystemTrustStore.bundleContents else {
                    throw Self.failure(
                        .trustStoreUnusable,
                        "no system CA bundle was found (looked where libcurl and the distributions keep it: "
                            + SystemTrustStore.knownBundles.joined(separator: ", ")
                            + "); install the ca-certificates package, or use .only with the CAs you need.")
                }
                setsCA = true
                caBlob = try Self.blob(of: extra, after: system)
            case .only(let pems):
                guard !pems.isEmpty else {
                    throw Self.failure(
                        .trustStoreUnusable,
                        "the class's tls trusts .only an empty list, so no server could be trusted.")
                }
                setsCA = true
                if pems.count == 1, case .file(let url) = pems[0] {
                    caFile = url.path
                } else {
                    caBlob = try Self.blob(of: pems, after: nil)
                }
            }
            if caBlob != nil {
                try Self.require(0x074D00, "7.77", for: "CA certificates in memory or in several files")
            }
        }

        private mutating func resolveClientCertificate(
            _ client: TLSConfiguration.ClientCertificate
        ) throws(ConnectionError) {
            switch client.certificate {
            case .file(let url): certificateFile = url.path
            case .bytes(let bytes):
                try Self.require(0x074700, "7.71", for: "a client certificate in memory")
                certificateBlob = bytes
            }
            switch client.key {
            case .file(let url): keyFile = url.path
            case .bytes(let bytes):
                try Self.require(0x074700, "7.71", for: "a client key in memory")
                keyBlob = bytes
            }
            guard let store = client.passphraseStore else { return }
            let passphrase: String?
            do {
                passphrase = try store.credential(for: client.passphraseAccount)
            } catch {
                // The store's error type only: its text is the store's business.
                throw Self.failure(
                    .clientCertificateUnusable,
                    "the client key's passphrase could not be read from its credential store "
                        + "(account \"\(client.passphraseAccount)\", \(type(of: error))).")
            }
            guard let passphrase else {
                throw Self.failure(
                    .clientCertificateUnusable,
                    "the credential store holds no passphrase for the client key "
                        + "(account \"\(client.passphraseAccount)\"); store it before sending.")
            }
            keyPassphrase = passphrase
        }

        /// libcurl reuses a pooled TLS connection for a transfer with the same client certificate, whatever
        /// its key and passphrase: a transfer whose key cannot be used would ride on the handshake of one
        /// whose key could. The certificate goes to libcurl as bytes, after a line that names a digest
        /// of the key and its passphrase (PEM readers skip text before `-----BEGIN`), so that only the
        /// same certificate with the same key shares a connection. With a libcurl before 7.71 (no
        /// certificate in memory), or a certificate file that cannot be read (the handshake then fails
        /// anyway), the certificate stays as it was given.
        private mutating func bindCertificateToKey() {
            guard ccurl_version_number() >= 0x074700 else { return }
            guard let certificate = certificateBlob ?? certificateFile.flatMap(FileManager.default.contents(atPath:))
            else { return }
            var key = SHA256()
            if let keyBlob {
                key.update(Array(keyBlob))
            } else if let keyFile {
                key.update(Array(keyFile.utf8) + [0])
                key.update(Array(FileManager.default.contents(atPath: keyFile) ?? Data()))
            }
            key.update([0] + Array((keyPassphrase ?? "").utf8))
            let tag = "ConnectionKit client key \(SHA256.hex(key.finalize()))\n"
            certificateBlob = Data(tag.utf8) + certificate
            certificateFile = nil
        }

        /// `sha256//a;sha256//b`, after checking that each pin is the base64 of 32 bytes.
        static func pinList(_ pins: [String]) throws(ConnectionError) -> String {
            var parts: [String] = []
            for (index, pin) in pins.enumerated() {
                var text = pin.trimmingCharacters(in: .whitespaces)
                if text.hasPrefix("sha256//") { text.removeFirst("sha256//".count) }
                guard let digest = Data(base64Encoded: text), digest.count == 32 else {
                    throw ConnectionError(
                        .invalidRequest(
                            reason:
                                "`tls`: pinned public key \(index + 1) is not the base64 of a SHA-256 digest "
                                + "(44 characters; see docs/tls.md for the openssl command that computes it)"))
                }
                parts.append("sha256//\(text)")
            }
            return parts.joined(separator: ";")
        }

        /// The PEM documents as one bundle, after `prefix` (the system bundle) when given.
        private static func blob(of pems: [TLSConfiguration.PEM], after prefix: Data?) throws(ConnectionError) -> Data {
            var bundle = prefix ?? Data()
            for pem in pems {
                let bytes: Data
                switch pem {
                case .bytes(let data): bytes = data
                case .file(let url):
                    guard let data = FileManager.default.contents(atPath: url.path) else {
                        throw failure(
                            .trustStoreUnusable,
                            "the CA file \(url.path) could not be read; check the path and its permissions.")
                    }
                    bytes = data
                }
                if !bundle.isEmpty, bundle.last != 0x0A { bundle.append(0x0A) }
                bundle.append(bytes)
            }
            return bundle
        }

        private static func require(_ version: UInt32, _ name: String, for feature: String) throws(ConnectionError) {
            let loaded = ccurl_version_number()
            guard loaded < version else { return }
            let text = ccurl_version().map { String(cString: $0) } ?? "unknown"
            throw failure(
                .unsupported,
                "\(feature) needs libcurl \(name) or later, and the loaded libcurl is \(text); "
                    + "give the certificates as one PEM file (.file) instead, or upgrade libcurl.")
        }

        static func failure(_ reason: TLSFailure.Reason, _ message: String) -> ConnectionError {
            ConnectionError(.tls(TLSFailure(reason, message: message)))
        }

        // MARK: - Applying (loop thread)

        /// Sets the options on a transfer made by `ccurl_xfer_new`; the error when libcurl refuses one.
        func apply(to xfer: UnsafeMutableRawPointer) -> ConnectionError? {
            var copies: [(pointer: UnsafeMutableRawPointer, count: Int)] = []
            // A copy that could not be made must not become a missing option (a pin list dropped would
            // turn pinning off): the transfer then fails closed, below.
            var copyFailed = false
            // Zeroed before they are freed: one of them may be the key or its passphrase.
            defer {
                for copy in copies {
                    memset(copy.pointer, 0, copy.count)
                    free(copy.pointer)
                }
            }
            func copy(_ source: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
                guard let base = source.baseAddress, !source.isEmpty else { return nil }
                guard let pointer = malloc(source.count) else {
                    copyFailed = true
                    return nil
                }
                pointer.copyMemory(from: base, byteCount: source.count)
                copies.append((pointer, source.count))
                return UnsafeRawPointer(pointer)
            }
            func string(_ value: String?) -> UnsafePointer<CChar>? {
                guard let value else { return nil }
                return value.utf8CString.withUnsafeBytes(copy).map { $0.assumingMemoryBound(to: CChar.self) }
            }
            func bytes(_ value: Data?) -> (UnsafeRawPointer?, Int) {
                guard let value, !value.isEmpty else { return (nil, 0) }
                return (value.withUnsafeBytes(copy), value.count)
            }
            let ca = bytes(caBlob)
            let certificate = bytes(certificateBlob)
            let key = bytes(keyBlob)
            var options = ccurl_tls(
                verify: verify ? 1 : 0, set_ca: setsCA ? 1 : 0, ca_file: string(caFile), ca_path: string(caFolder),
                ca_blob: ca.0, ca_blob_length: ca.1, pinned_keys: string(pinnedKeys),
                cert_file: string(certificateFile), cert_blob: certificate.0, cert_blob_length: certificate.1,
                key_file: string(keyFile), key_blob: key.0, key_blob_length: key.1, key_password: string(keyPassphrase),
                minimum_version: Int32(minimumVersion.rawValue))
            guard !copyFailed else {
                return Self.failure(
                    .unsupported,
                    "the class's tls settings could not be copied for libcurl (out of memory); nothing was sent.")
            }
            var refused: UnsafePointer<CChar>?
            let status = ccurl_xfer_set_tls(xfer, &options, &refused)
            guard status != 0 else { return nil }
            let option = refused.map { String(cString: $0) } ?? "a TLS option"
            let version = ccurl_version().map { String(cString: $0) } ?? "unknown"
            let backend = ccurl_tls_backend().map { String(cString: $0) } ?? "no TLS library"
            let why = ccurl_tls_option_missing(status) != 0 ? "does not support" : "refused (libcurl error \(status))"
            return Self.failure(
                .unsupported,
                "the loaded libcurl \(version) with \(backend) \(why) \(option), which the class's tls needs; "
                    + "use a libcurl built with OpenSSL, or ask less of tls.")
        }
    }
#endif
