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
    ]

    public static func document(of flows: [EvidenceFlow]) -> Data {
        var text = line(headers)
        for flow in flows { text += line(row(of: flow)) }
        return Data(text.utf8)
    }

    static func row(of flow: EvidenceFlow) -> [String] {
        let leaf = flow.serverCertificate.chain?.first
        let peer = { (index: Int) -> String in
            guard index < flow.peers.count else { return "" }
            let endpoint = flow.peers[index]
            return endpoint.address.contains(":") ? "[\(endpoint.address)]:\(endpoint.port)" : "\(endpoint.address):\(endpoint.port)"
        }
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
        ]
    }

    /// "TLS1.2", or the hex of a version without a name.
    static func compact(_ version: EvidenceTLSVersion) -> String {
        TLSProtocolVersion(version.wireValue).compactText
    }

    static func line(_ cells: [String]) -> String {
        cells.map(EvidenceCSVCell.escape).joined(separator: ",") + "\r\n"
    }
}

enum EvidenceCSVCell {
    /// A cell a spreadsheet would run as a formula gets a leading apostrophe; a cell with a
    /// comma, a quote or a line break is quoted, its quotes doubled.
    static func escape(_ cell: String) -> String {
        var text = cell
        if let first = text.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            text = "'" + text
        }
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

}
