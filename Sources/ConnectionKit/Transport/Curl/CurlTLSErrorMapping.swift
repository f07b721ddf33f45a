#if canImport(CCurlShim)
    import CCurlShim
    import Foundation

    /// Turns libcurl's TLS results into ``TLSFailure``s: the CURLcode says which step failed, libcurl's
    /// message and the TLS library's verify result tell an expired certificate from an untrusted one
    /// or a wrong name.
    enum CurlTLSErrorMapping {
        // OpenSSL's X509_V_ERR_* codes, as CURLINFO_SSL_VERIFYRESULT reports them with OpenSSL.
        private static let certificateNotYetValid = 9
        private static let certificateExpired = 10
        private static let hostnameMismatch = 62

        /// The failure for `result` (a CURLcode), or `nil` when it is not a TLS failure.
        static func failure(result: Int32, detail: String, verifyResult: Int, settings: CurlTLSSettings) -> TLSFailure?
        {
            let text = detail.lowercased()
            let openSSL = ccurl_tls_backend().map { String(cString: $0).hasPrefix("OpenSSL") } ?? false
            let step = ccurl_tls_classify(result)
            switch step {
            case ccurl_tls_pin_mismatch:
                return TLSFailure(
                    .pinMismatch,
                    message:
                        "the server's public key matches none of the class's pinned keys. If the server's key was "
                        + "rotated, add the new key's pin to tls.pinnedPublicKeys (keep the old one until every "
                        + "server has the new key).",
                    detail: detail)
            case ccurl_tls_verification:
                return verificationFailure(text: text, verdict: openSSL ? verifyResult : 0, detail: detail)
            case ccurl_tls_ca_unreadable:
                return TLSFailure(
                    .trustStoreUnusable,
                    message:
                        "the CA certificates could not be read; check the files given in tls.trust (PEM, readable "
                        + "by this process).",
                    detail: detail)
            case ccurl_tls_client_certificate:
                return TLSFailure(
                    .clientCertificateUnusable,
                    message:
                        "the class's client certificate or key could not be used: a missing or unreadable file, "
                        + "a key that does not belong to the certificate, or a wrong passphrase.",
                    detail: detail)
            case ccurl_tls_handshake, ccurl_tls_receive:
                return handshakeFailure(
                    text: text, isHandshake: step == ccurl_tls_handshake, settings: settings, detail: detail)
            default:
                return nil
            }
        }

        /// The server's certificate was refused: a wrong name, out of its validity, or untrusted.
        private static func verificationFailure(text: String, verdict: Int, detail: String) -> TLSFailure {
            if verdict == hostnameMismatch || text.contains("subject name") || text.contains("host name")
                || text.contains("hostname")
            {
                return TLSFailure(
                    .hostnameMismatch,
                    message:
                        "the server's certificate is not issued for the host name in the URL. Use the name the "
                        + "certificate names, or have the certificate reissued with this one.",
                    detail: detail)
            }
            if verdict == certificateExpired || verdict == certificateNotYetValid || text.contains("expired")
                || text.contains("not yet valid")
            {
                return TLSFailure(
                    .expiredCertificate,
                    message:
                        "the server's certificate has expired or is not valid yet. Have it renewed, and check "
                        + "that this machine's clock is right.",
                    detail: detail)
            }
            return TLSFailure(
                .untrustedCertificate,
                message:
                    "the server's certificate is not signed by a CA this class trusts. For a private CA, add it "
                    + "with tls.trust (.systemPlus or .only); for a public server, install the ca-certificates "
                    + "package.",
                detail: detail)
        }

        /// The handshake failed, or a receive error happened during it: a refused client certificate, no
        /// common TLS version, another handshake failure; `nil` for a lost connection without a TLS alert.
        private static func handshakeFailure(
            text: String, isHandshake: Bool, settings: CurlTLSSettings, detail: String
        ) -> TLSFailure? {
            if isClientCertificateRefusal(text) {
                let sent = settings.certificateFile != nil || settings.certificateBlob != nil
                return TLSFailure(
                    .clientCertificateRejected,
                    message: sent
                        ? "the server refused the class's client certificate; check that it is issued by a CA "
                            + "the server trusts and has not expired."
                        : "the server requires a client certificate and the class presents none; set "
                            + "tls.clientCertificate.",
                    detail: detail)
            }
            if text.contains("protocol version") || text.contains("unsupported protocol")
                || text.contains("no protocols available")
            {
                return TLSFailure(
                    .handshakeFailed,
                    message:
                        "the server and the class share no TLS version (the class accepts "
                        + "\(settings.minimumVersion) or later); upgrade the server, or lower "
                        + "tls.minimumVersion if that is acceptable.",
                    detail: detail)
            }
            // A receive error without a TLS alert is a lost connection, not a TLS failure.
            guard isHandshake || text.contains("alert") else { return nil }
            return TLSFailure(
                .handshakeFailed,
                message:
                    "the TLS handshake with the server failed; check that the URL's port speaks TLS and that "
                    + "the server accepts TLS \(settings.minimumVersion == .tls13 ? "1.3" : "1.2 or 1.3").",
                detail: detail)
        }

        private static func isClientCertificateRefusal(_ text: String) -> Bool {
            [
                "alert certificate required", "alert bad certificate", "alert unknown ca", "alert certificate unknown",
                "alert certificate revoked", "alert certificate expired",
            ].contains {
                text.contains($0)
            } && !text.contains("protocol version")
        }
    }
#endif
