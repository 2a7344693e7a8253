import Foundation
import TunnelVisionModel

/// A flow as the tshark comparison reads it: plain JSON values, names as the model's own.
enum FlowJSON {
    static func object(_ state: FlowState, dnsAnswers: [DNSAnswerRecord]) -> [String: Any] {
        var object: [String: Any] = [
            "proto": state.key.proto.name,
            "a": state.key.endpointA.description,
            "b": state.key.endpointB.description,
            "packets": state.packetCount,
            "bytesOut": state.bytesOut,
            "bytesIn": state.bytesIn,
            "tlsStatus": state.tlsStatus.name,
            "firstSeen": state.firstSeen.nanosecondsSinceEpoch,
        ]
        object["sni"] = state.sni
        object["httpHost"] = state.httpHost
        object["opening"] = state.streamOpening?.name
        if let resolved = state.resolvedName {
            object["dnsName"] = resolved.name
            object["dnsOtherNames"] = resolved.otherNames
        }
        if let offer = state.clientTLS {
            object["offer"] = [
                "form": offer.versionsForm == .listed ? "listed" : "upTo",
                "versions": offer.versions.map(\.rawValue),
                "alpn": offer.applicationProtocols,
                "omittedALPN": offer.omittedApplicationProtocols,
                "dropped": offer.droppedIdentifiers,
                "ech": offer.hasEncryptedClientHello,
                "earlyData": offer.offersEarlyData,
            ] as [String: Any]
        }
        switch state.serverTLS {
        case .negotiated(let negotiation):
            object["negotiated"] = [
                "version": negotiation.version.rawValue,
                "cipher": negotiation.cipherSuite.rawValue,
                "hrr": negotiation.fromHelloRetryRequest,
            ] as [String: Any]
        case .refused(let alert):
            object["refused"] = alert
        case nil:
            break
        }
        switch state.serverCertificates {
        case .presented(let chain, let complete):
            object["certificates"] = [
                "complete": complete,
                "chain": chain.map { ["subject": $0.subject, "issuer": $0.issuer, "sha256": $0.sha256] },
            ] as [String: Any]
        case .notSent(let absence):
            object["certificates"] = ["notSent": absence.name]
        case nil:
            break
        }
        object["visibility"] = state.certificateVisibility.name
        if let quic = state.quic {
            object["quic"] = ["version": quic.version.rawValue, "end": quic.end == .client ? "client" : "server"] as [String: Any]
        }
        if !dnsAnswers.isEmpty {
            object["dnsAnswers"] = dnsAnswers.map { ["name": $0.queryName, "address": $0.address.description, "ttl": $0.ttl] as [String: Any] }
        }
        return object
    }
}
