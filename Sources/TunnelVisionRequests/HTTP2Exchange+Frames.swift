import TunnelVisionModel

/// The frames held whole: header blocks (HEADERS, PUSH_PROMISE, CONTINUATION), RST_STREAM and SETTINGS.
extension HTTP2Exchange {
    mutating func frame(
        type: UInt8, flags: UInt8, stream: UInt32, payload: UnsafeRawBufferPointer, side: inout Side, from direction: RequestDirection
    ) throws {
        let malformed = RequestReadingError.malformedFrame(type: type)
        switch type {
        case 3:
            guard stream != 0, payload.count == 4 else { throw malformed }
            // A server that has answered may reset the stream while the phone's body is still on
            // its way (nginx does, answering before it reads the body): what the phone sends after
            // is still its body, counted until the phone ends or resets the stream, or the
            // connection ends. A reset before any answer, or by the phone, ends the request.
            if direction == .fromServer, let open = streams[stream], open.status != nil, !open.bodyEnded {
                streams[stream]!.responseEnded = true
            } else {
                completeIfDone(stream, reset: true)
            }
        case 4:
            guard stream == 0, payload.count % 6 == 0 else { throw malformed }
            try settings(flags: flags, payload: payload, side: &side, from: direction)
        case 9:
            guard let block = side.block else { throw malformed }
            try inflate(payload, into: block, ends: flags & 0x4 != 0, side: &side, from: direction)
        default:
            guard stream != 0 else { throw malformed }
            var fragment = payload[...]
            if flags & 0x8 != 0 {
                guard let padding = fragment.first, Int(padding) < fragment.count else { throw malformed }
                fragment = fragment.dropFirst().dropLast(Int(padding))
            }
            if type == 1, flags & 0x20 != 0 {
                guard fragment.count >= 5 else { throw malformed }
                fragment = fragment.dropFirst(5)
            }
            if type == 5 {
                guard fragment.count >= 4 else { throw malformed }
                fragment = fragment.dropFirst(4)
            }
            let block = Block(stream: stream, isPromise: type == 5, endsStream: type == 1 && flags & 0x1 != 0)
            try inflate(UnsafeRawBufferPointer(rebasing: fragment), into: block, ends: flags & 0x4 != 0, side: &side, from: direction)
        }
    }

    /// SETTINGS_HEADER_TABLE_SIZE bounds the table the other side's encoder fills; it takes
    /// effect on that side's blocks after that side's acknowledgement (RFC 9113 § 6.5.3), which
    /// is where in the other side's bytes the encoder switched. A size above the reader's bound
    /// is held to the bound: a peer that then uses more is an HPACK error, not more memory.
    private mutating func settings(flags: UInt8, payload: UnsafeRawBufferPointer, side: inout Side, from direction: RequestDirection) throws {
        if flags & 0x1 != 0 {
            // This side acknowledges the other's oldest SETTINGS: its encoder uses them from here.
            // (The other side is not the one being read, so it is changed where it is stored.)
            var size: Int??
            if direction == .fromPhone, !server.unacknowledgedTableSizes.isEmpty {
                size = server.unacknowledgedTableSizes.removeFirst()
            } else if direction == .fromServer, !phone.unacknowledgedTableSizes.isEmpty {
                size = phone.unacknowledgedTableSizes.removeFirst()
            }
            if let size, let size { try side.inflater.setTableSize(size) }
            return
        }
        var size: Int?
        for offset in stride(from: 0, to: payload.count, by: 6) {
            let identifier = UInt16(payload[offset]) << 8 | UInt16(payload[offset + 1])
            let value = (2...5).reduce(UInt32(0)) { $0 << 8 | UInt32(payload[offset + $1]) }
            if identifier == 1 { size = min(Int(value), limits.headerTableBytes) }
        }
        guard side.unacknowledgedTableSizes.count < Self.unacknowledgedSettingsLimit else { throw RequestReadingError.malformedFrame(type: 4) }
        side.unacknowledgedTableSizes.append(size)
    }

    /// Decodes a fragment; the whole block (END_HEADERS) opens a request, ends it, or gives its status.
    private mutating func inflate(
        _ fragment: UnsafeRawBufferPointer, into block: Block, ends: Bool, side: inout Side, from direction: RequestDirection
    ) throws {
        var block = block
        let limit = limits.fieldBytes
        try side.inflater.inflate(fragment, final: ends) { name, value in
            if name.elementsEqual(":method".utf8) {
                block.method = boundedText(value, limit: limit)
            } else if name.elementsEqual(":authority".utf8) {
                block.authority = boundedText(value, limit: limit).lowercased()
            } else if name.elementsEqual("host".utf8) {
                block.host = boundedText(value, limit: limit).lowercased()
            } else if name.elementsEqual(":path".utf8) {
                block.path = boundedText(value, limit: limit)
            } else if name.elementsEqual(":status".utf8), value.count == 3, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                block.status = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            }
        }
        guard ends else {
            side.block = block
            return
        }
        side.block = nil
        guard !block.isPromise else { return }
        let stream = block.stream
        switch direction {
        case .fromPhone:
            if streams[stream] != nil {
                // Trailers: they may end the stream.
                if block.endsStream { ended(stream, from: .fromPhone) }
                return
            }
            // Trailers of a request already complete, or a stream the phone may not open.
            guard stream > highestPhoneStream, stream % 2 == 1 else { return }
            guard let method = block.method else { throw RequestReadingError.missingMethod(stream: stream) }
            guard streams.count < limits.openRequests else { throw RequestReadingError.beyondBound(.openRequests, limit: limits.openRequests) }
            highestPhoneStream = stream
            streams[stream] = OpenRequest(
                instant: instant, method: method, authority: block.authority ?? block.host, path: keepsPaths ? block.path : nil)
            if block.endsStream { ended(stream, from: .fromPhone) }
        case .fromServer:
            guard streams[stream] != nil else { return }
            // An informational status (1xx) is followed by the final one.
            if let status = block.status, status >= 200, streams[stream]!.status == nil { streams[stream]!.status = status }
            if block.endsStream { ended(stream, from: .fromServer) } else { completeIfDone(stream) }
        }
    }
}
