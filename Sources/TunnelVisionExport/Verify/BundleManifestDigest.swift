import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionDigest

/// The SHA-256 of a bundle's manifest.json, read out of the zip: what names a bundle wherever its
/// bytes go (the lab's archive keeps it beside them). The manifest lists every other file's digest,
/// so it stands for all of them.
public enum BundleManifestDigest {
    /// Nil when the file is not a zip with one manifest.json in its folder.
    public static func of(bundle path: String) -> String? {
        guard let reader = try? ZipArchiveReader(path: path) else { return nil }
        let manifests = reader.members.filter { member in
            let parts = member.name.split(separator: "/", omittingEmptySubsequences: false)
            return !member.isDirectory && parts.last == "manifest.json" && parts.count <= 2
        }
        guard manifests.count == 1, let bytes = try? reader.contents(of: manifests[0]) else { return nil }
        return SHA256Hasher.hex(of: Data(bytes))
    }
}
