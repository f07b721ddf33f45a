import Foundation
import Testing

@testable import ConnectionKit

#if canImport(CCurlShim)
    import CCurlShim

    /// The system's CA store is found the way libcurl finds it, with the distributions' bundles as the fallback.
    @Suite("The system trust store for libcurl", .offThePool, .timeLimit(.minutes(1)))
    struct SystemTrustStoreTests {
        @Test(
            "the bundle is libcurl's own default when libcurl reports one that exists, else a known bundle; named alone"
        )
        func bundleFollowsLibcurl() throws {
            _ = try ConnectionTransport.libcurl()
            let bundle = try #require(SystemTrustStore.bundle, "no CA bundle found on this machine")
            #expect(FileManager.default.isReadableFile(atPath: bundle))
            if let reported = ccurl_default_ca_file().map({ String(cString: $0) }),
                FileManager.default.fileExists(atPath: reported)
            {
                #expect(bundle == reported)
            } else {
                #expect(SystemTrustStore.knownBundles.contains(bundle))
            }
            // The default configuration names the bundle alone (no folder), so that libcurl caches the parsed store.
            #expect(CurlTLSSettings.system.setsCA)
            #expect(CurlTLSSettings.system.caFile == bundle)
            #expect(CurlTLSSettings.system.caFolder == nil)
            #expect((SystemTrustStore.bundleContents?.count ?? 0) > 0)
        }

        @Test("pins are checked and joined in curl's form; the sha256// prefix is optional")
        func pinList() throws {
            let pin = Data(repeating: 7, count: 32).base64EncodedString()
            #expect(try CurlTLSSettings.pinList([pin, "sha256//\(pin)"]) == "sha256//\(pin);sha256//\(pin)")
            #expect(throws: ConnectionError.self) {
                try CurlTLSSettings.pinList([Data(count: 20).base64EncodedString()])
            }
        }
    }
#endif
