import Foundation
import TunnelVisionModel

/// The Codable path to the bundle's JSON, for the shapes not yet described for
/// EvidenceJSONWriter (the small documents and tvctl's own shapes): what Foundation's
/// JSONEncoder writes with sorted keys, pretty printing, unescaped slashes and the bundle's
/// instants. Each value is encoded into bytes as soon as it is complete; an object sorts its
/// keys when it closes. Every value the writer knows (scalars, instants, described shapes) is
/// written by the writer, so a value has one encoding whichever path it takes.
struct EvidenceJSONEncoder {
    static func encode(_ value: some Encodable) throws -> [UInt8] {
        try Slot.bytes(of: value, depth: 0)
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
        }
        final class Elements { var values: [[UInt8]] = [] }

        let depth: Int
        var content: Content?

        init(depth: Int) {
            self.depth = depth
        }

        static func bytes(of value: some Encodable, depth: Int) throws -> [UInt8] {
            if let known = value as? any EvidenceJSONWritable { return try EvidenceJSONWriter.encoded(known, depth: depth) }
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

        static func string(_ text: String) -> [UInt8] {
            var json = EvidenceJSONWriter()
            json.string(text)
            return json.bytes
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
            put(try Slot.bytes(of: value, depth: slot.depth + 1), for: key)
        }

        // The primitives synthesized conformances hand over as such: written without a cast.
        func encode(_ value: String, forKey key: Key) throws { try put(value, for: key) }
        func encode(_ value: Bool, forKey key: Key) throws { try put(value, for: key) }
        func encode(_ value: Double, forKey key: Key) throws { try put(value, for: key) }
        func encode(_ value: Int, forKey key: Key) throws { try put(value, for: key) }
        func encode(_ value: Int64, forKey key: Key) throws { try put(value, for: key) }
        func encode(_ value: UInt64, forKey key: Key) throws { try put(value, for: key) }
        func encode(_ value: UInt32, forKey key: Key) throws { try put(value, for: key) }
        func encode(_ value: UInt16, forKey key: Key) throws { try put(value, for: key) }
        func encode(_ value: UInt8, forKey key: Key) throws { try put(value, for: key) }

        private func put(_ value: some EvidenceJSONWritable, for key: Key) throws {
            put(try EvidenceJSONWriter.encoded(value, depth: slot.depth + 1), for: key)
        }

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
