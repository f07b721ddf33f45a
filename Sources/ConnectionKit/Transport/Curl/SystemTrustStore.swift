#if canImport(CCurlShim)
    import CCurlShim
    import Foundation

    /// The system's CA store as libcurl finds it: the loaded libcurl's built-in default (libcurl 7.84
    /// reports it), or else the bundle where the distribution keeps it.
    enum SystemTrustStore {
        /// Where distributions keep the PEM bundle: Debian, Ubuntu and Alpine; Fedora and RHEL; openSUSE;
        /// RHEL's extracted bundle; Alpine's and BSD's `cert.pem`.
        static let knownBundles = [
            "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem",
            "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/cert.pem",
        ]

        /// libcurl's own default bundle, when it reports one and the file exists.
        static let libcurlBundle: String? = {
            guard let path = ccurl_default_ca_file().map({ String(cString: $0) }), isReadableFile(path) else {
                return nil
            }
            return path
        }()

        /// The bundle to use: libcurl's default, or the first known bundle that exists.
        static let bundle: String? = libcurlBundle ?? knownBundles.first(where: isReadableFile)

        /// The bundle's bytes, read once (for a store extended with the class's own CAs).
        static let bundleContents: Data? = bundle.flatMap { FileManager.default.contents(atPath: $0) }

        private static func isReadableFile(_ path: String) -> Bool {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
                && FileManager.default.isReadableFile(atPath: path)
        }
    }
#endif
