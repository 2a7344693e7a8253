import Foundation
import TunnelVisionDigest

/// A finished file's size and SHA-256 read back from disk: for a file a killed daemon left (sealed
/// at the next start) and for the exporter, which checks a file against its seal before copying it.
public enum CaptureFileDigest {
    public static func sha256(ofFileAt path: String) throws(CaptureReadError) -> (bytes: UInt64, sha256: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, errno: errno) }
        defer { close(descriptor) }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, errno: errno)
            }
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return (hasher.byteCount, hasher.finish())
    }
}
