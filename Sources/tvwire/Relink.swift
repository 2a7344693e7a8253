import Foundation
import TunnelVisionCaptureFiles
import TunnelVisionImport
import TunnelVisionWire

/// Rewrites a capture's frames under another link layer: each frame's IP packet, as recorded,
/// behind the header that link type puts first. For the link types no tool on a Linux lab
/// writes (PPP, Cisco HDLC, NFLOG without a netfilter rule), so that tshark can read the same
/// packets under them.
enum Relink {
    static let headers: [String: (linkType: UInt32, header: @Sendable (_ ipVersion: UInt8, _ length: Int) -> [UInt8])] = [
        // RFC 1662 address and control, then the PPP protocol (IPv4 0x0021, IPv6 0x0057).
        "ppp": (9, { version, _ in [0xFF, 0x03, 0x00, version == 6 ? 0x57 : 0x21] }),
        // Unicast address, control 0, then the EtherType.
        "chdlc": (104, { version, _ in [0x0F, 0x00] + (version == 6 ? [0x86, 0xDD] : [0x08, 0x00]) }),
        // Family, version 0, resource ID 1 (big-endian), then one packet attribute (type 9,
        // little-endian length including its own four bytes).
        "nflog": (239, { version, length in
            let attribute = length + 4
            return [version == 6 ? 10 : 2, 0, 0, 1, UInt8(attribute & 0xFF), UInt8(attribute >> 8), 9, 0]
        }),
    ]

    static func write(input: String, output: String, kind: String) throws {
        guard let (linkType, header) = headers[kind] else { fail("link types: \(headers.keys.sorted().joined(separator: ", "))") }
        let reader = try CaptureImportReader(path: input)
        guard let file = fopen(output, "wb") else { fail("cannot create \(output)") }
        defer { fclose(file) }
        var fileHeader = PcapFormat.fileHeader(snapshotLength: PcapFormat.defaultSnapshotLength)
        fileHeader.replaceSubrange(20..<24, with: withUnsafeBytes(of: linkType.littleEndian, Array.init))
        fwrite(fileHeader, 1, fileHeader.count, file)
        try reader.forEachPacket { packet in
            guard let network = reader.linkType.networkPayload(of: packet.bytes), let first = network.first,
                  let time = packet.timestampNanoseconds else { return true }
            var frame = header(first >> 4, network.count) + Array(network)
            // NFLOG pads its last attribute to four bytes too.
            if linkType == 239 { frame += [UInt8](repeating: 0, count: (4 - network.count % 4) % 4) }
            var record: [UInt8] = []
            record.appendLittleEndian(UInt32(truncatingIfNeeded: time / 1_000_000_000))
            record.appendLittleEndian(UInt32(truncatingIfNeeded: time % 1_000_000_000 / 1000))
            record.appendLittleEndian(UInt32(frame.count))
            record.appendLittleEndian(UInt32(frame.count + packet.wireLength - packet.bytes.count))
            fwrite(record, 1, record.count, file)
            fwrite(frame, 1, frame.count, file)
            return true
        }
    }
}
