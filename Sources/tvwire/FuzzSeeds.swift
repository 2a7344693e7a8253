import Foundation
import PacketBuilding
import TunnelVisionImport
import TunnelVisionModel
import TunnelVisionWire

/// Cuts seed inputs for one fuzz target out of every capture under a directory.
enum FuzzSeeds {
    static func write(target: String, into directory: String, from captures: String) {
        var seeds = Set<[UInt8]>()
        let files = FileManager.default.enumerator(atPath: captures)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".pcap") || $0.hasSuffix(".pcapng") }.sorted() ?? []
        for file in files {
            guard let reader = try? CaptureImportReader(path: "\(captures)/\(file)") else { continue }
            var streams: [String: [UInt8]] = [:]
            var engineInput: [UInt8] = []
            var fragmentRun: [UInt8] = []
            _ = try? reader.forEachPacket { packet in
                guard let network = reader.linkType.networkPayload(of: packet.bytes),
                      let decoded = DecodedPacket(frame: packet.bytes, linkType: reader.linkType) else { return true }
                let payload = Array(decoded.payload)
                let ports = [decoded.sourcePort, decoded.destinationPort]
                switch target {
                case "TLS" where decoded.transport == .tcp && !payload.isEmpty:
                    let key = "\(decoded.source)>\(decoded.destination)"
                    if streams[key, default: []].count < 32 * 1024 { streams[key, default: []] += payload }
                // QUIC is read on any port: every UDP datagram that starts with a long header, and
                // Google QUIC's public-header packets (Q043).
                case "QUICInitial" where decoded.transport == .udp && ((payload.first ?? 0) & 0x80 != 0
                    || GoogleQUICPacket(clientDatagram: decoded.payload) != nil):
                    seeds.insert(payload)
                case "DNS" where ports.contains(53) && !payload.isEmpty:
                    seeds.insert(payload)
                case "Packet":
                    seeds.insert([0] + Array(network))
                // Each capture's fragments in their order, framed as the target reads them.
                case "Fragments" where decoded.ip.fragmentIdentifier != nil:
                    fragmentRun.appendBigEndian(UInt16(truncatingIfNeeded: network.count))
                    fragmentRun.append(0)
                    fragmentRun += network
                case "Engine":
                    engineInput.appendBigEndian(UInt16(truncatingIfNeeded: network.count))
                    engineInput.append(1)
                    engineInput += network
                default:
                    break
                }
                return true
            }
            for stream in streams.values { seeds.insert(stream) }
            if !engineInput.isEmpty { seeds.insert(engineInput) }
            if !fragmentRun.isEmpty { seeds.insert(fragmentRun) }
        }
        for (index, seed) in seeds.enumerated() {
            _ = FileManager.default.createFile(atPath: "\(directory)/seed-\(index)", contents: Data(seed))
        }
        print("\(seeds.count) seeds for \(target)")
    }
}
