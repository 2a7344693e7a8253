import Foundation
import TunnelVisionEvidence

/// A new file written through a buffer and hashed on the way out, so that a capture of hundreds
/// of megabytes is read once. Created exclusively; removed again unless it is finished.
final class HashedFile {
    enum Failure: Error, Sendable, Hashable {
        case cannotCreate(path: String, errno: Int32)
        case cannotWrite(path: String, errno: Int32)
    }

    let path: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private let hasher = SHA256Hasher()
    private static let bufferSize = 1 << 20

    init(path: String, mode: mode_t = 0o640) throws(Failure) {
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .cannotCreate(path: path, errno: errno) }
        self.path = path
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.bufferSize)
    }

    deinit {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            unlink(path)
        }
    }

    func append(_ bytes: [UInt8]) throws(Failure) {
        try append { $0.append(contentsOf: bytes) }
    }

    /// Lets `body` append to the buffer in place.
    func append(_ body: (inout [UInt8]) -> Void) throws(Failure) {
        body(&buffer)
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Closes the file and hands back its entry for the manifest.
    func finish(name: String) throws(Failure) -> EvidenceManifest.Entry {
        try flush()
        let closed = Glibc.close(descriptor)
        descriptor = -1
        guard closed == 0 else {
            unlink(path)
            throw .cannotWrite(path: path, errno: errno)
        }
        return EvidenceManifest.Entry(name: name, byteCount: hasher.byteCount, sha256: hasher.finish())
    }

    private func flush() throws(Failure) {
        guard !buffer.isEmpty else { return }
        var failure: Int32 = 0
        buffer.withUnsafeBytes { bytes in
            hasher.update(bytes)
            var done = 0
            while done < bytes.count {
                guard let base = bytes.baseAddress else { return }
                let written = Glibc.write(descriptor, base + done, bytes.count - done)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += written
            }
        }
        guard failure == 0 else { throw .cannotWrite(path: path, errno: failure) }
        buffer.removeAll(keepingCapacity: true)
    }
}
