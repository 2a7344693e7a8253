import Foundation

/// Writes both buffers completely, resuming after short writes; the errno on failure.
/// The vector lives on the stack: this runs once per packet.
func writeAll(descriptor: Int32, header: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) -> Int32? {
    withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { vectors -> Int32? in
        vectors[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: header.baseAddress), iov_len: header.count)
        vectors[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: payload.baseAddress), iov_len: payload.count)
        var remaining = header.count + payload.count
        var first = 0
        while remaining > 0 {
            guard let base = vectors.baseAddress else { return EINVAL }
            let written = writev(descriptor, base + first, Int32(vectors.count - first))
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            remaining -= written
            var consumed = written
            while first < vectors.count, consumed >= vectors[first].iov_len {
                consumed -= vectors[first].iov_len
                first += 1
            }
            if first < vectors.count, consumed > 0 {
                vectors[first].iov_base = vectors[first].iov_base?.advanced(by: consumed)
                vectors[first].iov_len -= consumed
            }
        }
        return nil
    }
}

extension CaptureWriteError {
    /// A full disk (or quota) is its own case: the daemon records packets as not captured
    /// until space returns, where any other failure is reported as it is.
    static func from(errno failure: Int32, path: String, directory: String) -> CaptureWriteError {
        failure == ENOSPC || failure == EDQUOT ? .noSpace(directory: directory) : .io(path: path, errno: failure)
    }
}
