/// The static files the pages link: the stylesheet, two small scripts and the icon,
/// compiled into the binary (SwiftPM's `embedInCode`) and served under `/static/` by a name
/// that carries a hash of their bytes (`/static/app.<hash>.css`), so a browser may cache
/// them for a year: a changed file is a new name.
public enum WebAssets {
    /// One static file.
    public struct Asset: Sendable, Hashable {
        /// The file's name in the sources: `app.css`.
        public let name: String
        /// Its bytes.
        public let bytes: [UInt8]
        /// The `Content-Type` to send: `text/css; charset=utf-8`.
        public let contentType: String
        /// 16 hex digits of the FNV-1a 64-bit hash of ``bytes``: the part of the path that
        /// changes with the content.
        public let hash: String
        /// The path pages link and the server answers: `/static/app.<hash>.css`.
        public let path: String

        /// The asset `name` (a base name and an extension) with `bytes`.
        init(name: String, bytes: [UInt8], contentType: String) {
            self.name = name
            self.bytes = bytes
            self.contentType = contentType
            hash = WebAssets.contentHash(bytes)
            let stem = name.split(separator: ".", maxSplits: 1)
            path = "/static/\(stem[0]).\(hash).\(stem.count > 1 ? String(stem[1]) : "")"
        }
    }

    /// The stylesheet every page links.
    public static let stylesheet = Asset(
        name: "app.css", bytes: PackageResources.app_css, contentType: "text/css; charset=utf-8")
    /// Small conveniences: the settings form saved through the API, copying a new token.
    public static let appScript = Asset(
        name: "app.js", bytes: PackageResources.app_js, contentType: "text/javascript; charset=utf-8")
    /// The upload page's progress bar, cancel button and import status.
    public static let uploadScript = Asset(
        name: "upload.js", bytes: PackageResources.upload_js, contentType: "text/javascript; charset=utf-8")
    /// The icon browsers show in tabs.
    public static let icon = Asset(
        name: "icon.svg", bytes: PackageResources.icon_svg, contentType: "image/svg+xml")

    /// Every asset.
    public static let all: [Asset] = [stylesheet, appScript, uploadScript, icon]

    /// The `Cache-Control` for an asset found by its hashed path: it never changes.
    public static let cacheControl = "public, max-age=31536000, immutable"

    /// The asset served at `path` (`/static/app.<hash>.css`), or `nil`: an unknown name, or a
    /// known name with another hash (an older page's link), is not found.
    public static func asset(atPath path: String) -> Asset? {
        all.first { $0.path == path }
    }

    /// 16 lowercase hex digits of the FNV-1a 64-bit hash of `bytes`. Not a cryptographic
    /// hash: it only has to change when the file changes.
    public static func contentHash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
