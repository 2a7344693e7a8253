import CNghttp2

/// One direction's HPACK decoder (RFC 7541), nghttp2's: Huffman codes, the static table and the
/// dynamic table the peer's encoder fills. Every header block of the direction goes through it,
/// including the ones whose fields are not kept, or the tables drift apart. nghttp2 bounds a
/// field's name and value (64 KiB) and the table by the size set here.
final class HPACKInflater {
    private let inflater: OpaquePointer

    init() throws {
        var made: OpaquePointer?
        let result = nghttp2_hd_inflate_new(&made)
        guard result == 0, let made else { throw RequestReadingError.headerCompression(reason: Self.reason(Int(result))) }
        inflater = made
    }

    deinit {
        nghttp2_hd_inflate_del(inflater)
    }

    /// The table size the decoding side announced in its SETTINGS (SETTINGS_HEADER_TABLE_SIZE),
    /// set between header blocks only.
    func setTableSize(_ size: Int) throws {
        let result = nghttp2_hd_inflate_change_table_size(inflater, size)
        guard result == 0 else { throw RequestReadingError.headerCompression(reason: Self.reason(Int(result))) }
    }

    /// Decodes one fragment of a header block, handing each field to `field`; `final` for the
    /// block's last fragment, which resets the decoder for the next block.
    func inflate(_ fragment: UnsafeRawBufferPointer, final: Bool, field: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) throws {
        guard let base = fragment.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            // An empty fragment still ends a block when it is the last.
            guard final else { return }
            let zero: [UInt8] = [0]
            try zero.withUnsafeBufferPointer { try inflate(from: $0.baseAddress!, count: 0, final: true, field: field) }
            return
        }
        try inflate(from: base, count: fragment.count, final: final, field: field)
    }

    private func inflate(
        from base: UnsafePointer<UInt8>, count: Int, final: Bool, field: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void
    ) throws {
        var input = base
        var left = count
        while true {
            var pair = nghttp2_nv()
            var flags: Int32 = 0
            let used = nghttp2_hd_inflate_hd2(inflater, &pair, &flags, input, left, final ? 1 : 0)
            guard used >= 0 else { throw RequestReadingError.headerCompression(reason: Self.reason(used)) }
            input += used
            left -= used
            if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) != 0 {
                field(UnsafeRawBufferPointer(start: pair.name, count: pair.namelen), UnsafeRawBufferPointer(start: pair.value, count: pair.valuelen))
            }
            if flags & Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue) != 0 {
                nghttp2_hd_inflate_end_headers(inflater)
                return
            }
            if flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) == 0, left == 0 {
                // A final fragment must end the block; anything else waits for the next fragment.
                if final { throw RequestReadingError.headerCompression(reason: "the header block ended inside a field") }
                return
            }
        }
    }

    private static func reason(_ code: Int) -> String {
        String(cString: nghttp2_strerror(Int32(code)))
    }
}
