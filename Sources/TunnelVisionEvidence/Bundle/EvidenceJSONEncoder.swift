import Foundation
import TunnelVisionModel

/// The bundle's JSON writer: what Foundation's JSONEncoder writes with sorted keys, pretty
/// printing, unescaped slashes and the bundle's instants, in a fraction of the time and memory
/// — flows.json of a long session is tens of megabytes. Each value is encoded into bytes as soon
/// as it is complete; an object sorts its keys when it closes.
struct EvidenceJSONEncoder {
    static func encode(_ value: some Encodable) throws -> [UInt8] {
        try Slot.bytes(of: value, depth: 0)
    }

    /// The bytes of `encode(_:)` handed to `output` as they are made. The top object's members
    /// are sorted when it closes, as always; an array among them is kept as the value it is and
    /// encoded element by element only then, straight into `output`.
    static func write(_ value: some Encodable, to output: any EvidenceOutput) throws {
        if let scalar = Slot.scalarBytes(of: value) { return try output.write(scalar) }
        let slot = Slot(depth: 0, streams: true)
        try value.encode(to: SlotEncoder(slot: slot))
        try slot.stream(to: output)
    }

    /// Where one value is being encoded, at one depth of indentation.
    final class Slot {
        enum Content {
            case scalar([UInt8])
            case object(Members)
            case array(Elements)
        }

        final class Members {
            var entries: [(key: String, value: [UInt8])] = []
            /// Arrays of a streaming slot, by key: encoded only as they are written out.
            var streamed: [String: any EvidenceJSONStreamable] = [:]
        }
        final class Elements { var values: [[UInt8]] = [] }

        let depth: Int
        /// Whether this slot writes its arrays out element by element (the top of a document).
        let streams: Bool
        var content: Content?

        init(depth: Int, streams: Bool = false) {
            self.depth = depth
            self.streams = streams
        }

        static func bytes(of value: some Encodable, depth: Int) throws -> [UInt8] {
            if let scalar = scalarBytes(of: value) { return scalar }
            let slot = Slot(depth: depth)
            try value.encode(to: SlotEncoder(slot: slot))
            return slot.finished()
        }

        func members() -> Members {
            if case .object(let members) = content { return members }
            let members = Members()
            content = .object(members)
            return members
        }

        func elements() -> Elements {
            if case .array(let elements) = content { return elements }
            let elements = Elements()
            content = .array(elements)
            return elements
        }

        /// The value's bytes. Unless the container may still grow (a nested one being settled),
        /// its members are let go as they are copied out, so that a long array is held about
        /// once, not twice.
        func finished(releasing: Bool = true) -> [UInt8] {
            switch content {
            case .scalar(let bytes):
                return bytes
            case .object(let members):
                var entries = members.entries
                if releasing { members.entries = [] }
                entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                let size = entries.reduce(0) { $0 + $1.key.utf8.count + $1.value.count + 8 }
                return Self.container(UInt8(ascii: "{"), UInt8(ascii: "}"), depth: depth, count: entries.count, size: size) { index, bytes in
                    bytes += Self.string(entries[index].key)
                    bytes += [0x20, 0x3A, 0x20]
                    bytes += entries[index].value
                    entries[index].value = []
                }
            case .array(let elements):
                var values = elements.values
                if releasing { elements.values = [] }
                let size = values.reduce(0) { $0 + $1.count }
                return Self.container(UInt8(ascii: "["), UInt8(ascii: "]"), depth: depth, count: values.count, size: size) { index, bytes in
                    bytes += values[index]
                    values[index] = []
                }
            case nil:
                return Array("{}".utf8)
            }
        }

        /// What `finished()` gives, into `output`: an object's streamed arrays element by element.
        func stream(to output: any EvidenceOutput) throws {
            guard case .object(let members) = content, !members.streamed.isEmpty else { return try output.write(finished()) }
            let entries = members.entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            try output.write([UInt8(ascii: "{"), 0x0A])
            for (index, entry) in entries.enumerated() {
                if index > 0 { try output.write([0x2C, 0x0A]) }
                try output.write(Self.indentation(depth + 1) + Self.string(entry.key) + [0x20, 0x3A, 0x20])
                if let array = members.streamed[entry.key] {
                    try Self.streamArray(array, depth: depth + 1, to: output)
                } else {
                    try output.write(entry.value)
                }
            }
            try output.write([0x0A] + Self.indentation(depth) + [UInt8(ascii: "}")])
        }

        /// The bytes `container` lays out for an array at `depth`, one element at a time.
        private static func streamArray(_ array: any EvidenceJSONStreamable, depth: Int, to output: any EvidenceOutput) throws {
            try output.write([UInt8(ascii: "["), 0x0A])
            let lead = indentation(depth + 1)
            var first = true
            try array.eachElement(depth: depth + 1) { element in
                try output.write(first ? lead : [0x2C, 0x0A] + lead)
                try output.write(element)
                first = false
            }
            try output.write([0x0A] + indentation(depth) + [UInt8(ascii: "]")])
        }

        private static func indentation(_ depth: Int) -> [UInt8] { Array(repeating: 0x20, count: 2 * depth) }

        private static func container(
            _ open: UInt8, _ close: UInt8, depth: Int, count: Int, size: Int, item: (Int, inout [UInt8]) -> Void
        ) -> [UInt8] {
            // Reserved whole: growing by doubling would hold up to twice a long array for a moment.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(size + count * (2 * depth + 4) + 2 * depth + 4)
            bytes += [open, 0x0A]
            for index in 0..<count {
                if index > 0 { bytes += [0x2C, 0x0A] }
                bytes += repeatElement(0x20, count: 2 * (depth + 1))
                item(index, &bytes)
            }
            bytes.append(0x0A)
            bytes += repeatElement(0x20, count: 2 * depth)
            bytes.append(close)
            return bytes
        }

        /// One cast per value: a chain of casts, one per scalar type, failed ten times for every
        /// nested struct of every flow.
        static func scalarBytes(of value: some Encodable) -> [UInt8]? {
            (value as? any EvidenceJSONScalar)?.jsonBytes
        }

        static func literal(_ flag: Bool) -> [UInt8] { Array((flag ? "true" : "false").utf8) }
        static func integer(_ number: some BinaryInteger) -> [UInt8] { Array(String(number).utf8) }

        /// As JSONEncoder writes it: a whole number without a fraction.
        static func number(_ value: Double) -> String {
            guard value.isFinite else { return "0" }
            if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
            return "\(value)"
        }

        static func string(_ text: String) -> [UInt8] {
            var bytes: [UInt8] = [0x22]
            bytes.reserveCapacity(text.utf8.count + 2)
            // Most strings need no escape: copied whole.
            guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
                bytes.append(contentsOf: text.utf8)
                bytes.append(0x22)
                return bytes
            }
            for byte in text.utf8 {
                switch byte {
                case 0x22: bytes += [0x5C, 0x22]
                case 0x5C: bytes += [0x5C, 0x5C]
                case 0x0A: bytes += [0x5C, 0x6E]
                case 0x0D: bytes += [0x5C, 0x72]
                case 0x09: bytes += [0x5C, 0x74]
                case 0x08: bytes += [0x5C, 0x62]
                case 0x0C: bytes += [0x5C, 0x66]
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                default: bytes.append(byte)
                }
            }
            bytes.append(0x22)
            return bytes
        }
    }

    struct SlotEncoder: Encoder {
        let slot: Slot
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Keyed<Key>(slot: slot, members: slot.members(), settle: nil))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            Unkeyed(slot: slot, elements: slot.elements(), settle: nil)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer { Single(slot: slot) }
    }

    /// A nested container has no end the encoder is told of: its bytes are put in place in its
    /// parent after every write (`settle`), up to the slot that finishes them.
    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let slot: Slot
        let members: Slot.Members
        let settle: (() -> Void)?
        var codingPath: [any CodingKey] { [] }

        func encodeNil(forKey key: Key) throws {
            members.entries.append((key.stringValue, Array("null".utf8)))
            settle?()
        }

        func encode(_ value: some Encodable, forKey key: Key) throws {
            if slot.streams, let array = value as? any EvidenceJSONStreamable {
                members.streamed[key.stringValue] = array
                return put([], for: key)
            }
            put(try Slot.bytes(of: value, depth: slot.depth + 1), for: key)
        }

        // The primitives synthesized conformances hand over as such: written without a cast.
        func encode(_ value: String, forKey key: Key) throws { put(Slot.string(value), for: key) }
        func encode(_ value: Bool, forKey key: Key) throws { put(Slot.literal(value), for: key) }
        func encode(_ value: Double, forKey key: Key) throws { put(Array(Slot.number(value).utf8), for: key) }
        func encode(_ value: Int, forKey key: Key) throws { put(Slot.integer(value), for: key) }
        func encode(_ value: Int64, forKey key: Key) throws { put(Slot.integer(value), for: key) }
        func encode(_ value: UInt64, forKey key: Key) throws { put(Slot.integer(value), for: key) }
        func encode(_ value: UInt32, forKey key: Key) throws { put(Slot.integer(value), for: key) }
        func encode(_ value: UInt16, forKey key: Key) throws { put(Slot.integer(value), for: key) }
        func encode(_ value: UInt8, forKey key: Key) throws { put(Slot.integer(value), for: key) }

        private func put(_ bytes: [UInt8], for key: Key) {
            members.entries.append((key.stringValue, bytes))
            settle?()
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = Slot(depth: slot.depth + 1)
            let settleNested = placeholder(for: key, filledBy: nested)
            return KeyedEncodingContainer(Keyed<NestedKey>(slot: nested, members: nested.members(), settle: settleNested))
        }

        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = Slot(depth: slot.depth + 1)
            let settleNested = placeholder(for: key, filledBy: nested)
            return Unkeyed(slot: nested, elements: nested.elements(), settle: settleNested)
        }

        private func placeholder(for key: Key, filledBy nested: Slot) -> () -> Void {
            members.entries.append((key.stringValue, nested.finished(releasing: false)))
            let index = members.entries.count - 1
            let (members, settle) = (self.members, self.settle)
            return {
                members.entries[index].value = nested.finished(releasing: false)
                settle?()
            }
        }

        func superEncoder() -> any Encoder { SlotEncoder(slot: slot) }
        func superEncoder(forKey key: Key) -> any Encoder { SlotEncoder(slot: slot) }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let slot: Slot
        let elements: Slot.Elements
        let settle: (() -> Void)?
        var codingPath: [any CodingKey] { [] }
        var count: Int { elements.values.count }

        func encodeNil() throws {
            elements.values.append(Array("null".utf8))
            settle?()
        }

        func encode(_ value: some Encodable) throws {
            elements.values.append(try Slot.bytes(of: value, depth: slot.depth + 1))
            settle?()
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = Slot(depth: slot.depth + 1)
            return KeyedEncodingContainer(Keyed<NestedKey>(slot: nested, members: nested.members(), settle: placeholder(filledBy: nested)))
        }

        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = Slot(depth: slot.depth + 1)
            return Unkeyed(slot: nested, elements: nested.elements(), settle: placeholder(filledBy: nested))
        }

        private func placeholder(filledBy nested: Slot) -> () -> Void {
            elements.values.append(nested.finished(releasing: false))
            let index = elements.values.count - 1
            let (elements, settle) = (self.elements, self.settle)
            return {
                elements.values[index] = nested.finished(releasing: false)
                settle?()
            }
        }

        func superEncoder() -> any Encoder { SlotEncoder(slot: slot) }
    }

    struct Single: SingleValueEncodingContainer {
        let slot: Slot
        var codingPath: [any CodingKey] { [] }

        func encodeNil() throws { slot.content = .scalar(Array("null".utf8)) }
        func encode(_ value: some Encodable) throws { slot.content = .scalar(try Slot.bytes(of: value, depth: slot.depth)) }
    }
}

/// The values the encoder writes as JSON scalars.
protocol EvidenceJSONScalar {
    var jsonBytes: [UInt8] { get }
}

extension String: EvidenceJSONScalar { var jsonBytes: [UInt8] { EvidenceJSONEncoder.Slot.string(self) } }
extension Bool: EvidenceJSONScalar { var jsonBytes: [UInt8] { EvidenceJSONEncoder.Slot.literal(self) } }
extension Date: EvidenceJSONScalar { var jsonBytes: [UInt8] { Instant(self).jsonBytes } }
extension Instant: EvidenceJSONScalar { var jsonBytes: [UInt8] { [0x22] + iso8601Bytes + [0x22] } }
extension Double: EvidenceJSONScalar { var jsonBytes: [UInt8] { Array(EvidenceJSONEncoder.Slot.number(self).utf8) } }
extension Int: EvidenceJSONScalar { var jsonBytes: [UInt8] { EvidenceJSONEncoder.Slot.integer(self) } }
extension Int64: EvidenceJSONScalar { var jsonBytes: [UInt8] { EvidenceJSONEncoder.Slot.integer(self) } }
extension UInt64: EvidenceJSONScalar { var jsonBytes: [UInt8] { EvidenceJSONEncoder.Slot.integer(self) } }
extension UInt32: EvidenceJSONScalar { var jsonBytes: [UInt8] { EvidenceJSONEncoder.Slot.integer(self) } }
extension UInt16: EvidenceJSONScalar { var jsonBytes: [UInt8] { EvidenceJSONEncoder.Slot.integer(self) } }
extension UInt8: EvidenceJSONScalar { var jsonBytes: [UInt8] { EvidenceJSONEncoder.Slot.integer(self) } }

/// An array a streaming slot writes out element by element.
protocol EvidenceJSONStreamable {
    func eachElement(depth: Int, _ body: ([UInt8]) throws -> Void) throws
}

extension Array: EvidenceJSONStreamable where Element: Encodable {
    func eachElement(depth: Int, _ body: ([UInt8]) throws -> Void) throws {
        for element in self { try body(try EvidenceJSONEncoder.Slot.bytes(of: element, depth: depth)) }
    }
}
