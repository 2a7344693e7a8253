import TunnelVisionModel
import TunnelVisionWire

extension FlowEngine {
    // MARK: - TCP

    mutating func readTCP(_ segment: TCPSegment, direction: Direction, slot: Int, at now: Int64) {
        table[slot].lifecycle.note(segment.flags, direction: direction)
        table[slot].state.noteTCPSegment(opensConnection: segment.flags.contains(.syn), payloadBytes: segment.payload.count)
        guard case .tcp(let reading)? = table.readingToChange(slot) else { return }
        defer { settle(reading, slot: slot) }

        if segment.flags.contains(.syn) {
            // The phone's SYN is the stream's start: without it the first bytes seen are not the
            // opening. A SYN-ACK names the same start in its acknowledgement.
            if direction == .outbound {
                reading.value.outbound.base = segment.sequenceNumber &+ 1
            } else {
                reading.value.inbound.base = segment.sequenceNumber &+ 1
                if segment.flags.contains(.ack), reading.value.outbound.base == nil {
                    reading.value.outbound.base = segment.acknowledgementNumber
                }
            }
        } else if direction == .outbound, reading.value.outbound.base == nil, !reading.value.outboundPayloadSeen,
                  StreamOpeningDetector.beginsWithTLSHandshake(segment.payload) {
            // The SYN went uncaptured, yet a ClientHello record names itself: its segment starts
            // the TLS stream, though not provably the connection's opening.
            reading.value.outbound.base = segment.sequenceNumber
            reading.value.startedWithoutSYN = true
        }
        if direction == .outbound, !segment.payload.isEmpty { reading.value.outboundPayloadSeen = true }
        if !segment.flags.contains(.syn), direction == .outbound, reading.value.outbound.base != nil, reading.value.inbound.base == nil,
                  segment.flags.contains(.ack) {
            // The SYN-ACK went uncaptured: the phone's acknowledgement names the server's start.
            reading.value.inbound.base = segment.acknowledgementNumber
        }
        let payload = segment.payload
        guard !payload.isEmpty else { return }
        noteReassemblyGrowth(payload.count, readingAt: slot)
        let sequence = segment.sequenceNumber &+ (segment.flags.contains(.syn) ? 1 : 0)
        switch direction {
        case .outbound:
            guard !reading.value.outboundSettled, reading.value.outbound.insert(sequence: sequence, payload: payload) else { return }
            if reading.value.outbound.bytes.overflowed { statistics.reassemblyOverflows += 1 }
            reading.value.readOutbound(certificates: &certificates)
        case .inbound:
            // Our own TLS server's bytes are not the server's reading: with the relay terminating, the server's
            // handshake is read by the relay and arrives as its report (docs/ARCHITECTURE.md § The relay).
            guard !table[slot].relayOwnsServerSide else { return }
            if reading.value.inbound.base == nil, !reading.value.outboundPayloadSeen, StreamOpeningDetector.beginsWithServerHello(payload) {
                // Neither the SYN-ACK nor the phone's bytes were captured, yet a ServerHello
                // record names itself: its segment starts the server's TLS stream.
                reading.value.inbound.base = sequence
            }
            guard reading.value.outbound.base != nil || reading.value.carriesDNS || reading.value.serverAnswersUnseenHello || reading.value.inbound.base != nil && !reading.value.outboundPayloadSeen,
                  reading.value.inbound.insert(sequence: sequence, payload: payload) else { return }
            if reading.value.inbound.bytes.overflowed { statistics.reassemblyOverflows += 1 }
            var answers: [DNSResponse] = []
            reading.value.readInbound(certificates: &certificates) { answers.append($0) }
            for response in answers { ingest(response, slot: slot, at: now) }
        }
        if reading.value.opening.opening == .tlsHandshake {
            table[slot].state.tlsStatus = table[slot].state.tlsStatus.raised(to: .encrypted)
        }
    }

    /// Copies what the reading learnt into the flow's state, and drops the reading once settled.
    private mutating func settle(_ reading: ReadingBox<TCPStreamReading>, slot: Int) {
        if let opening = reading.value.opening.opening, reading.value.outbound.base != nil, !reading.value.startedWithoutSYN {
            table[slot].state.streamOpening = opening
        }
        if let hello = reading.value.client.reading {
            apply(hello, slot: slot)
            if hello.offer?.offersEarlyData == true {
                let answer = table[slot].relayOwnsServerSide ? nil : reading.value.server.earlyDataAnswer
                table[slot].state.earlyData = EarlyDataReading(wasSent: reading.value.earlyDataSent ?? false, serverAnswer: answer)
            }
        }
        if case .read(let host?)? = reading.value.requestHost, !reading.value.startedWithoutSYN { table[slot].state.httpHost = host }
        if let host = reading.value.upgrade.requestedHost { table[slot].state.socksHost = host }
        if let announcement = reading.value.upgrade.proxyAnnouncement { table[slot].state.proxyProtocol = announcement }
        if !table[slot].relayOwnsServerSide {
            if let answer = reading.value.server.answer { table[slot].state.serverTLS = answer }
            if let certificates = reading.value.server.certificates { table[slot].state.serverCertificates = certificates }
        }
        if reading.value.isSettled {
            if reading.value.clientSpeaksTLS, reading.value.server.answer == nil { statistics.serverAnswersUnread += 1 }
            table[slot].reading = nil
        }
    }

    private mutating func apply(_ hello: ClientHelloReading, slot: Int) {
        if let name = hello.serverName { table[slot].state.sni = name }
        if let offer = hello.offer { table[slot].state.clientTLS = offer }
    }

    // MARK: - UDP: QUIC and DNS

    mutating func readUDP(
        _ payload: UnsafeRawBufferPointer, source: Endpoint, direction: Direction, slot: Int, at now: Int64
    ) {
        if source.port == 53, direction == .inbound, let response = DNSResponse(message: payload) {
            ingest(response, slot: slot, at: now)
        }
        let end: QUICEnd = direction == .outbound ? .client : .server
        if direction == .outbound { readGoogleQUIC(payload, slot: slot) }
        if let version = GoogleQUICPacket.longHeaderVersion(payload) {
            // Q046's long header as it stands on 443, as below; elsewhere once a CHLO proved the flow.
            if end == .client, table[slot].firstClientQUICVersion == nil { table[slot].firstClientQUICVersion = version }
            if table[slot].remote.port == 443 || table[slot].state.quic != nil { note(version, end: end, slot: slot) }
            return
        }
        guard let header = QUICLongHeader(payload) else { return }
        if end == .client, header.hasFixedBit, table[slot].firstClientQUICVersion == nil {
            table[slot].firstClientQUICVersion = header.version
        }
        // On 443 a long header of a published version family is taken for QUIC as it stands;
        // elsewhere, or of another version, only once an Initial of the connection has opened,
        // its tag the proof.
        let asItStands = table[slot].remote.port == 443 && header.hasFixedBit && header.version.isOfAPublishedFamily
        if asItStands { note(header.version, end: end, slot: slot) }
        guard header.version.hasReadableInitials, let reader = quicReader(slot: slot, header: header, end: end) else { return }
        reader.value.read(datagram: payload, from: end == .client ? .client : .server)
        if reader.value.isProven, !asItStands { note(header.version, end: end, slot: slot) }
        if let hello = reader.value.clientHello {
            apply(hello, slot: slot)
            if hello.offer?.offersEarlyData == true {
                table[slot].state.earlyData = EarlyDataReading(wasSent: reader.value.clientSentZeroRTT, serverAnswer: reader.value.earlyDataAnswer)
            }
        }
        if let answer = reader.value.serverAnswer { table[slot].state.serverTLS = answer }
        if let certificates = reader.value.serverCertificates { table[slot].state.serverCertificates = certificates }
        if reader.value.isSettled {
            table[slot].quicReadingEnded = true
            table[slot].reading = nil
        }
    }

    /// Google QUIC's unencrypted hello (Q043, Q046): begun at the phone's first such packet, its
    /// CHLO the proof that the flow is QUIC.
    private mutating func readGoogleQUIC(_ payload: UnsafeRawBufferPointer, slot: Int) {
        let reader: ReadingBox<GoogleQUICHandshakeReader>
        switch table.readingToChange(slot) {
        case .googleQUIC(let current)?:
            reader = current
        case nil where !table[slot].quicReadingEnded:
            guard let packet = GoogleQUICPacket(clientDatagram: payload) else { return }
            if table[slot].firstClientQUICVersion == nil { table[slot].firstClientQUICVersion = packet.version }
            reader = ReadingBox(GoogleQUICHandshakeReader())
            table[slot].reading = .googleQUIC(reader)
        default:
            return
        }
        reader.value.read(clientDatagram: payload)
        if let hello = reader.value.clientHello, let version = reader.value.version {
            apply(hello.hello, slot: slot)
            note(version, end: .client, slot: slot)
        }
        if reader.value.isSettled {
            table[slot].quicReadingEnded = true
            table[slot].reading = nil
        }
    }

    /// The flow's QUIC reader, begun (and kept by the flow) at the phone's first Initial of a
    /// version whose Initials open; nil for a flow that has none, or whose reading ended.
    private mutating func quicReader(slot: Int, header: QUICLongHeader, end: QUICEnd) -> ReadingBox<QUICHandshakeReader>? {
        if case .quic(let reader)? = table.readingToChange(slot) { return reader }
        // A 0-RTT packet may overtake the Initial it follows: it begins the reading too.
        guard table[slot].reading == nil, !table[slot].quicReadingEnded, end == .client,
              header.isInitial || header.isZeroRTT else { return nil }
        let reader = ReadingBox(QUICHandshakeReader())
        table[slot].reading = .quic(reader)
        return reader
    }

    /// A long header's version: the server's replaces anything, the client's only the client's.
    private mutating func note(_ version: QUICVersion, end: QUICEnd, slot: Int) {
        if end == .server || table[slot].state.quic?.end != .server {
            table[slot].state.quic = QUICReading(version: version, end: end, firstVersion: table[slot].firstClientQUICVersion)
        }
        if version.hasKnownPacketProtection {
            table[slot].state.tlsStatus = table[slot].state.tlsStatus.raised(to: .encrypted)
        }
    }

    // MARK: - DNS

    private mutating func ingest(_ response: DNSResponse, slot: Int, at now: Int64) {
        statistics.dnsResponses += 1
        guard let name = DNSAttribution.storableName(response.queryName) else { return }
        let client = table[slot].client.address
        for answer in response.answers {
            attribution.record(name: name, address: answer.address, answeredTo: client, ttl: answer.ttl, at: now)
            pending.dnsAnswers.append(DNSAnswerRecord(
                timestampNanoseconds: now, queryName: name, address: answer.address, ttl: answer.ttl,
                flow: table[slot].handle
            ))
        }
    }
}
