import Foundation
import TunnelVisionModel

/// How a flow's observations map to the columns of `flows`, and what an update may change.
enum FlowColumns {
    enum Update {
        /// Part of the 5-tuple: written once.
        case never
        case replace
        case minimum
        case maximum
        /// Decided once (a DNS name, the opening): the first value stays.
        case keepFirst
        /// Replaced when the new value is present; an absent reading never erases one.
        case unlessAbsent
        /// One reading spread over several columns: replaced whole when its first column is present.
        case withGroup(leader: String)
        /// Follows `dns_name`: replaced only while no name was stored.
        case whileNoDNSName
        /// Raised, never lowered; an absent value leaves the stored one.
        case raisedUnlessAbsent
    }

    static let all: [(name: String, update: Update)] = [
        ("protocol", .never), ("a_address", .never), ("a_port", .never), ("b_address", .never), ("b_port", .never),
        ("first_seen", .minimum), ("last_seen", .maximum),
        ("bytes_out", .replace), ("bytes_in", .replace), ("packet_count", .replace),
        ("tls_status", .maximum),
        ("sni", .unlessAbsent),
        ("dns_name", .keepFirst), ("dns_other_names", .whileNoDNSName),
        ("stream_opening", .keepFirst),
        ("client_versions_form", .unlessAbsent),
        ("client_versions", .withGroup(leader: "client_versions_form")),
        ("client_alpn", .withGroup(leader: "client_versions_form")),
        ("client_alpn_omitted", .withGroup(leader: "client_versions_form")),
        ("client_dropped_identifiers", .withGroup(leader: "client_versions_form")),
        ("client_ech", .withGroup(leader: "client_versions_form")),
        ("server_answer", .unlessAbsent),
        ("server_version", .withGroup(leader: "server_answer")),
        ("server_cipher", .withGroup(leader: "server_answer")),
        ("server_from_hrr", .withGroup(leader: "server_answer")),
        ("server_source", .withGroup(leader: "server_answer")),
        ("server_alert", .withGroup(leader: "server_answer")),
        ("server_certificates", .unlessAbsent),
        ("quic_version", .unlessAbsent),
        ("quic_end", .withGroup(leader: "quic_version")),
        ("http_host", .keepFirst),
        ("client_early_data", .withGroup(leader: "client_versions_form")),
        ("tcp_payload", .raisedUnlessAbsent),
        ("socks_host", .keepFirst),
        ("continuation", .keepFirst),
        ("quic_first_version", .withGroup(leader: "quic_version")),
        ("proxy_protocol", .keepFirst),
    ]

    /// An insert's columns, in the order `insertRow` gives their values.
    static let insertPrefix = "INSERT INTO flows (id, capture_run, " + all.map(\.name).joined(separator: ", ") + ", audit_session_id, changed)"
    static let insertWidth = all.count + 4

    /// A new row's values: its id (the one SQLite would give it: one above the largest, see
    /// `FlowRowIDs`), the capture run, the columns, the recording that tags it (NULL: none)
    /// and its change marker.
    static func insertRow(id: Int64, captureRun: Int64, values: [SQLValue], tag: Int64?, change: Int64) -> [SQLValue] {
        var row: [SQLValue] = [.integer(id), .integer(captureRun)]
        row.reserveCapacity(insertWidth)
        row.append(contentsOf: values)
        row.append(.optionalInteger(tag))
        row.append(.integer(change))
        return row
    }

    /// An update's parameters after the columns (`?1` is the row id, the columns follow from
    /// `?2`): the recording that tags the flow, its change marker.
    static let tagParameter = all.count + 2
    static let changeParameter = all.count + 3

    /// `?1` is the row id. A tag, once set, never changes; an untagged flow flushed again while
    /// its phone's recording is open is tagged then. Only the columns the update may change are
    /// set (`unchanged`): the rest of the row stays as it is.
    static func updateSQL(leavingOut unchanged: UInt64) -> String {
        let position = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.name, $0 + 2) })
        let sets: [String] = all.enumerated().compactMap { offset, column in
            let new = "?\(offset + 2)", name = column.name
            guard unchanged & (1 << UInt64(offset)) == 0 else { return nil }
            switch column.update {
            case .never: return nil
            case .replace: return "\(name) = \(new)"
            case .minimum: return "\(name) = MIN(\(name), \(new))"
            case .maximum: return "\(name) = MAX(\(name), \(new))"
            case .keepFirst: return "\(name) = COALESCE(\(name), \(new))"
            case .unlessAbsent: return "\(name) = COALESCE(\(new), \(name))"
            case .withGroup(let leader):
                return "\(name) = CASE WHEN ?\(position[leader]!) IS NULL THEN \(name) ELSE \(new) END"
            case .whileNoDNSName:
                return "\(name) = CASE WHEN dns_name IS NULL THEN \(new) ELSE \(name) END"
            case .raisedUnlessAbsent:
                return "\(name) = MAX(COALESCE(\(name), \(new)), COALESCE(\(new), \(name)))"
            }
        }
        return """
            UPDATE flows SET \(sets.joined(separator: ", ")),
                audit_session_id = COALESCE(audit_session_id, ?\(tagParameter)),
                changed = ?\(changeParameter)
            WHERE id = ?1
            """
    }

    /// The columns (bit n: `all[n]`) an update with `values` cannot change: an absent reading
    /// under a rule that then keeps the stored value whatever it is — COALESCE with NULL, the
    /// larger of a value and itself, a group whose first column is absent. (A `whileNoDNSName`
    /// column is always set: with no name stored, an absent value is written.)
    static func unchanged(by values: [SQLValue]) -> UInt64 {
        var mask: UInt64 = 0
        for (offset, column) in all.enumerated() {
            let keeps: Bool = switch column.update {
            case .never: true
            case .keepFirst, .unlessAbsent, .raisedUnlessAbsent: values[offset].isNull
            case .withGroup(let leader): values[leaderOffsets[leader]!].isNull
            case .replace, .minimum, .maximum, .whileNoDNSName: false
            }
            if keeps { mask |= 1 << UInt64(offset) }
        }
        return mask
    }

    private static let leaderOffsets = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.name, $0) })

    /// The relay's facts ride along, read from `flow_relay`: what the certificate
    /// validation check reads of a flow; and the requests read inside it (`RequestColumns`).
    static let selectList = "id, " + all.map(\.name).joined(separator: ", ")
        + ", (SELECT decision FROM flow_relay WHERE flow_id = flows.id)"
        + ", (SELECT event FROM flow_relay WHERE flow_id = flows.id)"
        + ", (SELECT alert FROM flow_relay WHERE flow_id = flows.id)"
        + ", (SELECT presented FROM flow_relay WHERE flow_id = flows.id)"
        + RequestColumns.selectColumns

    /// The values of `all`, in its order; without `withKey`, NULL for the 5-tuple (`.never`), which
    /// only an insert writes. `texts` spells the addresses and lists a batch repeats once.
    static func values(of flow: FlowState, withKey: Bool = true, texts: inout FlowTexts) -> [SQLValue] {
        let client = flow.clientTLS
        let negotiation = flow.serverTLS?.negotiation
        var alert: SQLValue = .null
        if case .refused(let code) = flow.serverTLS { alert = .integer(Int64(code)) }
        let serverKind: SQLValue = switch flow.serverTLS {
        case .negotiated: .integer(0)
        case .refused: .integer(1)
        case nil: .null
        }
        return [
            .integer(Int64(flow.key.proto.rawValue)),
            withKey ? .text(texts.address(flow.key.endpointA.address)) : .null, .integer(Int64(flow.key.endpointA.port)),
            withKey ? .text(texts.address(flow.key.endpointB.address)) : .null, .integer(Int64(flow.key.endpointB.port)),
            .instant(flow.firstSeen), .instant(flow.lastSeen),
            .integer(Int64(clamping: flow.bytesOut)), .integer(Int64(clamping: flow.bytesIn)),
            .integer(Int64(clamping: flow.packetCount)),
            .integer(Int64(flow.tlsStatus.rawValue)),
            .optionalText(flow.sni),
            .optionalText(flow.resolvedName?.name),
            .optionalText(flow.resolvedName.map { FlowCoding.json($0.otherNames) }),
            .optionalInteger(flow.streamOpening.map { Int64($0.rawValue) }),
            .optionalInteger(client.map { Int64($0.versionsForm.rawValue) }),
            .optionalText(client.map { FlowCoding.versionsText($0.versions) }),
            .optionalText(client.map { texts.json($0.applicationProtocols) }),
            .optionalInteger(client.map { Int64($0.omittedApplicationProtocols) }),
            .optionalInteger(client.map { Int64($0.droppedIdentifiers) }),
            .optionalInteger(client.map { $0.hasEncryptedClientHello ? 1 : 0 }),
            serverKind,
            .optionalInteger(negotiation.map { Int64($0.version.rawValue) }),
            .optionalInteger(negotiation.map { Int64($0.cipherSuite.rawValue) }),
            .optionalInteger(negotiation.map { Int64($0.helloRetry?.rawValue ?? 0) }),
            .optionalInteger(negotiation.map { Int64($0.source.rawValue) }),
            alert,
            .optionalText(flow.serverCertificates.map(FlowCoding.certificatesJSON)),
            .optionalInteger(flow.quic.map { Int64($0.version.rawValue) }),
            .optionalInteger(flow.quic.map { Int64($0.end.rawValue) }),
            .optionalText(flow.httpHost),
            .optionalInteger(client.map { $0.offersEarlyData ? (flow.earlyData ?? EarlyDataReading()).storedValue : 0 }),
            .optionalInteger(flow.tcpPayload.map { Int64($0.rawValue) }),
            .optionalText(flow.socksHost),
            .optionalInteger(flow.continuation.map { Int64($0.rawValue) }),
            .optionalInteger(flow.quic?.firstVersion.map { Int64($0.rawValue) }),
            .optionalText(flow.proxyProtocol?.storedText),
        ]
    }

    /// Reads a row selected with `selectList`.
    static func flow(from row: Row) -> StoredFlow {
        var column: Int32 = 1
        func next() -> Int32 { defer { column += 1 }; return column }
        let proto = TransportProtocol(rawValue: UInt8(truncatingIfNeeded: row.int64(next())))
        let a = Endpoint(address: IPAddress(row.text(next())) ?? IPAddress(v4: 0), port: UInt16(truncatingIfNeeded: row.int64(next())))
        let b = Endpoint(address: IPAddress(row.text(next())) ?? IPAddress(v4: 0), port: UInt16(truncatingIfNeeded: row.int64(next())))
        var state = FlowState(key: FlowKey(proto: proto, a, b), firstSeen: row.instant(next()), lastSeen: row.instant(next()))
        state.bytesOut = UInt64(clamping: row.int64(next()))
        state.bytesIn = UInt64(clamping: row.int64(next()))
        state.packetCount = UInt64(clamping: row.int64(next()))
        state.tlsStatus = TLSInspectionStatus(rawValue: UInt8(truncatingIfNeeded: row.int64(next()))) ?? .plaintext
        state.sni = row.textOrNil(next())
        let dnsName = row.textOrNil(next()), others = row.textOrNil(next())
        state.resolvedName = dnsName.map { ResolvedName(name: $0, otherNames: others.map(FlowCoding.strings) ?? []) }
        state.streamOpening = row.int64OrNil(next()).flatMap { StreamOpening(rawValue: UInt8(truncatingIfNeeded: $0)) }
        let form = row.int64OrNil(next()), versions = row.textOrNil(next()), alpn = row.textOrNil(next())
        let omitted = row.int64(next()), dropped = row.int64(next()), ech = row.bool(next())
        if let form, let versionsForm = ClientTLSOffer.VersionsForm(rawValue: UInt8(truncatingIfNeeded: form)) {
            state.clientTLS = ClientTLSOffer(
                versionsForm: versionsForm, versions: FlowCoding.versions(versions ?? ""),
                applicationProtocols: alpn.map(FlowCoding.strings) ?? [], omittedApplicationProtocols: Int(omitted),
                droppedIdentifiers: Int(dropped), hasEncryptedClientHello: ech)
        }
        let answer = row.int64OrNil(next()), version = row.int64(next()), cipher = row.int64(next())
        let hrr = row.int64(next()), source = row.int64(next()), alertCode = row.int64(next())
        switch answer {
        case 0:
            state.serverTLS = .negotiated(TLSNegotiation(
                version: TLSProtocolVersion(UInt16(truncatingIfNeeded: version)),
                cipherSuite: CipherSuite(UInt16(truncatingIfNeeded: cipher)), helloRetry: hrr == 0 ? nil : HelloRetryReading(rawValue: UInt8(clamping: hrr)) ?? .notToldApart,
                source: TLSReadingSource(rawValue: UInt8(truncatingIfNeeded: source)) ?? .serverHello))
        case 1: state.serverTLS = .refused(alert: UInt8(truncatingIfNeeded: alertCode))
        default: break
        }
        state.serverCertificates = row.textOrNil(next()).flatMap(FlowCoding.certificates)
        let quicVersion = row.int64OrNil(next()), quicEnd = row.int64(next())
        if let quicVersion {
            state.quic = QUICReading(
                version: QUICVersion(UInt32(truncatingIfNeeded: quicVersion)),
                end: QUICEnd(rawValue: UInt8(truncatingIfNeeded: quicEnd)) ?? .client)
        }
        state.httpHost = row.textOrNil(next())
        let earlyData = row.int64(next())
        if earlyData & 1 == 1, let offer = state.clientTLS {
            state.earlyData = EarlyDataReading(storedValue: earlyData)
            state.clientTLS = ClientTLSOffer(
                versionsForm: offer.versionsForm, versions: offer.versions, applicationProtocols: offer.applicationProtocols,
                omittedApplicationProtocols: offer.omittedApplicationProtocols, droppedIdentifiers: offer.droppedIdentifiers,
                hasEncryptedClientHello: offer.hasEncryptedClientHello, offersEarlyData: true)
        }
        state.tcpPayload = row.int64OrNil(next()).flatMap { TCPPayloadSighting(rawValue: UInt8(clamping: $0)) }
        state.socksHost = row.textOrNil(next())
        state.continuation = row.int64OrNil(next()).flatMap { FlowContinuation(rawValue: UInt8(clamping: $0)) }
        if let firstVersion = row.int64OrNil(next()), let quic = state.quic {
            state.quic = QUICReading(version: quic.version, end: quic.end, firstVersion: QUICVersion(UInt32(truncatingIfNeeded: firstVersion)))
        }
        state.proxyProtocol = row.textOrNil(next()).flatMap(ProxyProtocolAnnouncement.init(storedText:))
        let decision = row.textOrNil(next()).flatMap(RelayDecisionKind.init(name:))
        let eventName = row.textOrNil(next()), alert = row.int64OrNil(next())
        let event = eventName.flatMap(RelayEventKind.init(name:))
        let presented = row.textOrNil(next()).flatMap(ShownLeafKind.init(name:))
        // An event this version does not know says nothing it could read.
        state.relay = decision.flatMap { eventName != nil && event == nil ? nil :
            RelayVerdict(decision: $0, event: event, alert: alert.flatMap { UInt8(exactly: $0) }, presented: presented)
        }
        let requests = RequestColumns.requests(fromJSON: row.textOrNil(next()))
        return StoredFlow(id: row.int64(0), state: state, requests: requests, requestsNotKept: Int(row.int64(next())))
    }
}
