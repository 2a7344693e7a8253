import Foundation
import TunnelVisionModel

/// flows.csv: the flows of flows.json, one row each in the same order, flattened for a
/// spreadsheet — UTF-8, CRLF, quoted as RFC 4180 says. flows.json is the one that counts: of a
/// chain only the server's own certificate is here, several values share a cell separated by a
/// space, and a TLS version is written without one (TLS1.2, or 0x7F1C when it has no name).
public enum EvidenceFlowsCSV {
    public static let headers = [
        "id", "protocol", "firstSeen", "lastSeen", "durationSeconds", "bytesOut", "bytesIn", "packetCount",
        "peerA", "peerB", "tlsStatus", "name", "nameOrigin", "sni", "dnsName", "dnsOtherNames", "streamOpening",
        "clientVersionsForm", "clientVersions", "applicationProtocols", "encryptedClientHello",
        "serverAnswer", "serverVersion", "cipherSuite", "fromHelloRetryRequest", "serverTLSSource", "alert",
        "quicVersion", "quicEnd", "certificateVisibility", "certificateSubject", "certificateIssuer",
        "certificateNotAfter", "certificateSHA256", "chainIsComplete", "findingIDs",
        // flows.json's other fields of one cell each, after the first columns so that a sheet
        // built on those keeps working.
        "httpHost", "socksHost", "tcpPayload", "helloRetry", "earlyDataOffered", "earlyDataSent",
        "earlyDataServerAnswer", "quicFirstVersion", "proxyProtocolVersion", "proxyProtocolSource",
        "proxyProtocolDestination",
    ]

    public static func document(of flows: [EvidenceFlow]) -> Data {
        var document = Data()
        chunks(of: flows) { document.append(contentsOf: $0) }
        return document
    }

    /// The document row by row into `output`: a long session's is megabytes.
    public static func write(_ flows: [EvidenceFlow], to output: any EvidenceOutput) throws {
        try chunks(of: flows) { try output.write($0) }
    }

    /// The document in pieces of some tens of kilobytes, in order.
    static func chunks(of flows: [EvidenceFlow], _ body: ([UInt8]) throws -> Void) rethrows {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 16)
        appendLine(headers, to: &bytes)
        for flow in flows {
            appendLine(row(of: flow), to: &bytes)
            if bytes.count >= 1 << 15 {
                try body(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
        }
        try body(bytes)
    }

    static func row(of flow: EvidenceFlow) -> [String] {
        let leaf = flow.serverCertificate.chain?.first
        let peer = { (index: Int) -> String in index < flow.peers.count ? endpoint(flow.peers[index]) : "" }
        return [
            String(flow.id), flow.protocol, EvidenceJSON.instant(flow.firstSeen), EvidenceJSON.instant(flow.lastSeen),
            String(flow.durationSeconds), String(flow.bytesOut), String(flow.bytesIn), String(flow.packetCount),
            peer(0), peer(1), flow.tlsStatus, flow.name?.text ?? "", flow.name?.origin ?? "", flow.sni ?? "",
            flow.dnsName ?? "", flow.dnsOtherNames?.joined(separator: " ") ?? "", flow.streamOpening ?? "",
            flow.clientTLS?.versionsForm ?? "", flow.clientTLS?.versions.map(compact).joined(separator: " ") ?? "",
            flow.clientTLS?.applicationProtocols.joined(separator: " ") ?? "",
            flow.clientTLS.map { String($0.encryptedClientHello) } ?? "",
            flow.serverTLS?.answer ?? "", flow.serverTLS?.version.map(compact) ?? "",
            flow.serverTLS?.cipherSuite?.hex ?? "", flow.serverTLS?.fromHelloRetryRequest.map { String($0) } ?? "",
            flow.serverTLS?.source ?? "", flow.serverTLS?.alert.map { String($0) } ?? "",
            flow.quic?.version.hex ?? "", flow.quic?.end ?? "",
            flow.serverCertificate.visibility, leaf?.subject ?? "", leaf?.issuer ?? "",
            leaf?.notAfter.map(EvidenceJSON.instant) ?? "", leaf?.sha256 ?? "",
            flow.serverCertificate.chainIsComplete.map { String($0) } ?? "",
            (flow.findingIDs ?? []).joined(separator: " "),
            flow.httpHost ?? "", flow.socksHost ?? "", flow.tcpPayload ?? "", flow.serverTLS?.helloRetry ?? "",
            flow.clientTLS?.earlyDataOffered.map { String($0) } ?? "",
            flow.clientTLS?.earlyData.map { String($0.sent) } ?? "", flow.clientTLS?.earlyData?.serverAnswer ?? "",
            flow.quic?.firstVersion?.hex ?? "", flow.proxyProtocol.map { String($0.version) } ?? "",
            flow.proxyProtocol?.source.map(endpoint) ?? "", flow.proxyProtocol?.destination.map(endpoint) ?? "",
        ]
    }

    static func endpoint(_ peer: EvidenceFlow.Peer) -> String {
        peer.address.contains(":") ? "[\(peer.address)]:\(peer.port)" : "\(peer.address):\(peer.port)"
    }

    /// "TLS1.2", or the hex of a version without a name.
    static func compact(_ version: EvidenceTLSVersion) -> String {
        TLSProtocolVersion(version.wireValue).compactText
    }

    static func appendLine(_ cells: [String], to bytes: inout [UInt8]) {
        for (index, cell) in cells.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            EvidenceCSVCell.append(cell, to: &bytes)
        }
        bytes += [0x0D, 0x0A]
    }
}

enum EvidenceCSVCell {
    /// A cell a spreadsheet would run as a formula gets a leading apostrophe; a cell with a
    /// comma, a quote or a line break is quoted, its quotes doubled.
    /// `escape(cell)` as UTF-8, without a String made on the way: every character tested is ASCII,
    /// so testing bytes is testing scalars.
    static func append(_ cell: String, to bytes: inout [UInt8]) {
        let utf8 = cell.utf8
        let formula = utf8.first.map { [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D].contains($0) } ?? false
        guard utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
            if formula { bytes.append(0x27) }
            bytes.append(contentsOf: utf8)
            return
        }
        bytes.append(0x22)
        if formula { bytes.append(0x27) }
        for byte in utf8 {
            if byte == 0x22 { bytes.append(0x22) }
            bytes.append(byte)
        }
        bytes.append(0x22)
    }

    static func escape(_ cell: String) -> String {
        var text = cell
        if let first = text.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            text = "'" + text
        }
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

}
