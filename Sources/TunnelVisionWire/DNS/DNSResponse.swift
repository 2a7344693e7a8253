import TunnelVisionModel

/// A DNS response as the attribution map needs it: the one question, and each address reachable
/// from it through the answer section's own CNAMEs, with the shortest TTL on that path.
public struct DNSResponse: Sendable, Hashable {
    public struct Answer: Sendable, Hashable {
        public let address: IPAddress
        public let ttl: UInt32
    }

    /// The asked name as it was written (case kept).
    public let queryName: String
    public let answers: [Answer]

    private enum RecordType {
        static let a: UInt16 = 1
        static let cname: UInt16 = 5
        static let aaaa: UInt16 = 28
    }

    private static let classIN: UInt16 = 1
    /// A chain longer than this loops or is an attack; real ones are two or three steps.
    private static let maximumChainSteps = 16
    private static let maximumRecords = 256

    /// Reads a response; nil unless it is a NOERROR, standard-query reply with one IN question.
    public init?(message: UnsafeRawBufferPointer) {
        var reader = ByteReader(message)
        guard reader.skip(2), let flags = reader.u16(), let questions = reader.u16(),
              let answerCount = reader.u16(), reader.skip(4)
        else { return nil }
        let isResponse = flags & 0x8000 != 0
        let opcode = (flags >> 11) & 0x0F
        let rcode = flags & 0x000F
        guard isResponse, opcode == 0, rcode == 0, questions == 1,
              let question = DNSName.read(&reader, in: message),
              reader.skip(2), let questionClass = reader.u16(), questionClass == Self.classIN
        else { return nil }
        var cnames: [(owner: String, target: String, ttl: UInt32)] = []
        var addresses: [(owner: String, address: IPAddress, ttl: UInt32)] = []
        for _ in 0..<min(Int(answerCount), Self.maximumRecords) {
            guard let owner = DNSName.read(&reader, in: message), let type = reader.u16(),
                  let recordClass = reader.u16(), let ttl = reader.u32(),
                  let data = reader.takeLengthPrefixed(lengthBytes: 2)
            else { break }
            guard recordClass == Self.classIN else { continue }
            let key = owner.lowercased()
            switch type {
            case RecordType.a, RecordType.aaaa:
                if let address = IPAddress(bytes: data) { addresses.append((key, address, ttl)) }
            case RecordType.cname:
                // The target may point back into the message, so it is read in the message's frame.
                var target = ByteReader(message)
                guard target.skip(reader.position - data.count), let name = DNSName.read(&target, in: message)
                else { continue }
                cnames.append((key, name.lowercased(), ttl))
            default:
                continue
            }
        }
        queryName = question
        answers = Self.reachable(from: question.lowercased(), cnames: cnames, addresses: addresses)
    }

    private static func reachable(
        from question: String,
        cnames: [(owner: String, target: String, ttl: UInt32)],
        addresses: [(owner: String, address: IPAddress, ttl: UInt32)]
    ) -> [Answer] {
        var result: [Answer] = []
        var name = question
        var pathTTL = UInt32.max
        var visited: Set<String> = [name]
        for _ in 0...maximumChainSteps {
            for record in addresses where record.owner == name {
                result.append(Answer(address: record.address, ttl: min(pathTTL, record.ttl)))
            }
            guard let next = cnames.first(where: { $0.owner == name }), visited.insert(next.target).inserted else { break }
            pathTTL = min(pathTTL, next.ttl)
            name = next.target
        }
        return result
    }
}

/// Splits DNS over TCP (RFC 1035 § 4.2.2): each message behind a two-byte length.
public enum DNSOverTCP {
    /// Calls `body` for every whole message in `stream` from `offset`; returns where it stopped.
    public static func forEachMessage(
        in stream: UnsafeRawBufferPointer, from offset: Int, _ body: (UnsafeRawBufferPointer) -> Void
    ) -> Int {
        var position = offset
        while let prefix = stream.slice(from: position, count: 2) {
            let length = Int(prefix[0]) << 8 | Int(prefix[1])
            guard let message = stream.slice(from: position + 2, count: length) else { break }
            body(message)
            position += 2 + length
        }
        return position
    }
}
