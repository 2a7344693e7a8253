/// A value that writes itself as JSON: each type names its keys once, in the order they are
/// written (bytewise ascending, as a sorted-keys encoder would put them). The one description
/// of a shape serves the bundle's documents and `tvctl --json` alike.
public protocol EvidenceJSONWritable {
    func write(to json: inout EvidenceJSONWriter) throws
}

/// Writes JSON straight into a buffer handed to an output as it fills: no tree of values, no
/// sorting, no allocation per value. The bytes are those of Foundation's JSONEncoder with sorted
/// keys and unescaped slashes, pretty-printed (the documents) or on one line (a stream's lines).
public struct EvidenceJSONWriter {
    public enum Layout: Sendable { case pretty, line }

    /// Written out when it holds this much: a document of any length is held in pieces this size.
    public static let pieceSize = 64 * 1024

    /// The bytes not yet handed to the output (all of them, without one).
    public internal(set) var bytes: [UInt8] = []
    private let output: (any EvidenceOutput)?
    private let pieceSize: Int
    let layout: Layout
    /// How deep the container being written is: its members are indented one level more.
    private(set) var depth = 0
    /// Whether the container being written has no member yet.
    private var empty = true
    #if DEBUG
        /// The last key of each open object: a description out of order would change the bytes.
        private var lastKeys: [[UInt8]?] = []
    #endif

    public init(layout: Layout = .pretty, output: (any EvidenceOutput)? = nil, pieceSize: Int = Self.pieceSize) {
        self.layout = layout
        self.output = output
        self.pieceSize = pieceSize
        bytes.reserveCapacity(output == nil ? 4096 : pieceSize + pieceSize / 4)
    }

    /// A value's bytes in pretty layout, for a document another encoder is writing at `depth`
    /// (see EvidenceJSONEncoder).
    static func encoded(_ value: some EvidenceJSONWritable, depth: Int) throws -> [UInt8] {
        var json = EvidenceJSONWriter()
        json.depth = depth
        try json.value(value)
        return json.bytes
    }

    /// Hands what is buffered to the output; without an output the bytes stay in `bytes`.
    public mutating func flush() throws {
        guard let output, !bytes.isEmpty else { return }
        try output.write(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    public mutating func value(_ value: some EvidenceJSONWritable) throws {
        try value.write(to: &self)
        if output != nil, bytes.count >= pieceSize { try flush() }
    }

    /// An object whose members `body` writes with `field`.
    public mutating func object(_ body: (inout EvidenceJSONWriter) throws -> Void) throws {
        try container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}")) { json in
            #if DEBUG
                json.lastKeys.append(nil)
                defer { json.lastKeys.removeLast() }
            #endif
            try body(&json)
        }
    }

    /// An array of `elements`, each written as it comes.
    public mutating func array<Elements: Sequence>(_ elements: Elements) throws where Elements.Element: EvidenceJSONWritable {
        try container(open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { json in
            for element in elements {
                json.separate()
                try json.value(element)
            }
        }
    }

    /// A member of the object being written.
    public mutating func field(_ key: StaticString, _ value: some EvidenceJSONWritable) throws {
        self.key(key)
        try self.value(value)
    }

    /// A member written only when there is a value: an absent key means "none" or "not read".
    public mutating func field(_ key: StaticString, _ value: (some EvidenceJSONWritable)?) throws {
        guard let value else { return }
        try field(key, value)
    }

    /// A member whose shape is described only as Encodable (a session, tvctl's own shapes):
    /// encoded the Codable way, which knows pretty layout only.
    public mutating func field(_ key: StaticString, encodable value: some Encodable) throws {
        precondition(layout == .pretty, "an Encodable member in a one-line document")
        self.key(key)
        bytes += try EvidenceJSONEncoder.Slot.bytes(of: value, depth: depth)
        if output != nil, bytes.count >= pieceSize { try flush() }
    }

    private mutating func key(_ key: StaticString) {
        let name = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        #if DEBUG
            if let previous = lastKeys[lastKeys.count - 1] {
                precondition(previous.lexicographicallyPrecedes(name), "key \(key) written out of order")
            }
            lastKeys[lastKeys.count - 1] = Array(name)
        #endif
        separate()
        bytes.append(0x22)
        bytes.append(contentsOf: name)
        if layout == .pretty {
            bytes += [0x22, 0x20, 0x3A, 0x20]
        } else {
            bytes += [0x22, 0x3A]
        }
    }

    /// What comes before a member: a comma after the first, and in pretty layout a line break and
    /// the member's indentation.
    private mutating func separate() {
        let first = empty
        empty = false
        guard layout == .pretty else {
            if !first { bytes.append(0x2C) }
            return
        }
        if !first { bytes += [0x2C, 0x0A] }
        indent(depth)
    }

    private mutating func indent(_ level: Int) {
        bytes.append(contentsOf: repeatElement(0x20, count: 2 * level))
    }

    /// Pretty layout writes an empty container as Foundation does: "[", a blank line, "]".
    private mutating func container(open: UInt8, close: UInt8, _ body: (inout EvidenceJSONWriter) throws -> Void) throws {
        let outer = (depth, empty)
        bytes.append(open)
        if layout == .pretty { bytes.append(0x0A) }
        (depth, empty) = (depth + 1, true)
        try body(&self)
        (depth, empty) = outer
        if layout == .pretty {
            bytes.append(0x0A)
            indent(depth)
        }
        bytes.append(close)
    }
}
