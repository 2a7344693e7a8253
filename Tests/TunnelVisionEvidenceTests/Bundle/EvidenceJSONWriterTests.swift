import Foundation
import Testing
@testable import TunnelVisionEvidence

/// The writer against Foundation's JSONEncoder, configured as the documents are specified
/// (sorted keys, unescaped slashes, the bundle's instants), on random documents: strings with
/// every class of escape, numbers at their extremes, absent members, empty and nested containers.
struct EvidenceJSONWriterTests {
    /// A document both encoders can write: Encodable for Foundation, described for the writer.
    indirect enum Tree: Encodable, EvidenceJSONWritable {
        case string(String), signed(Int64), unsigned(UInt64), byte(UInt8), number(Double), flag(Bool), instant(Date)
        case array([Tree])
        /// Members in the writer's order; a nil value is a member left out.
        case object([(key: StaticString, value: Tree?)])

        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .string(let text): try Self.single(text, encoder)
            case .signed(let number): try Self.single(number, encoder)
            case .unsigned(let number): try Self.single(number, encoder)
            case .byte(let number): try Self.single(number, encoder)
            case .number(let number): try Self.single(number, encoder)
            case .flag(let flag): try Self.single(flag, encoder)
            case .instant(let date): try Self.single(date, encoder)
            case .array(let elements):
                var container = encoder.unkeyedContainer()
                for element in elements { try container.encode(element) }
            case .object(let members):
                var container = encoder.container(keyedBy: Key.self)
                for member in members { try container.encodeIfPresent(member.value, forKey: Key(stringValue: "\(member.key)")) }
            }
        }

        private static func single(_ value: some Encodable, _ encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }

        func write(to json: inout EvidenceJSONWriter) throws {
            switch self {
            case .string(let text): try json.value(text)
            case .signed(let number): try json.value(number)
            case .unsigned(let number): try json.value(number)
            case .byte(let number): try json.value(number)
            case .number(let number): try json.value(number)
            case .flag(let flag): try json.value(flag)
            case .instant(let date): try json.value(date)
            case .array(let elements): try json.array(elements)
            case .object(let members):
                try json.object { json in
                    for member in members { try json.field(member.key, member.value) }
                }
            }
        }
    }

    /// Keys in bytewise order, which is the order Foundation sorts them in: a digit, capitals,
    /// a prefix and its extensions, and a key beyond ASCII.
    static let keys: [StaticString] = ["", "0", "A", "AB", "Ab", "B", "_", "a", "a0", "aB", "ab", "abc", "b", "format", "formatVersion", "z", "é"]

    /// Pieces of strings: every control character, the quote, the backslash, the slash, DEL,
    /// the line and paragraph separators, a byte-order mark, accents and an emoji.
    static let pieces: [String] = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        + ["\"", "\\", "/", "\u{7F}", "\u{2028}", "\u{2029}", "\u{FEFF}", "é", "😀", "a", " ", "text", "0"]

    static let numbers: [Double] = [
        0, -0.0, 1, -1, 0.1, 0.5, 2.5, -3, 1e-7, 1e15, 1e15 - 1, -1e15 + 1, 1e16, 1.5e15, 123_456_789.125, 1e300, -1e300,
        .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, 0x1p53 + 2,
        Double(Int64.max), 3.14159, 1 / 3, 4_294_967_296.5, 0.000_123,
    ]

    struct Random {
        var state: UInt64

        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }

        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

        mutating func tree(depth: Int) -> Tree {
            switch below(depth < 4 ? 10 : 7) {
            case 0: return .string((0..<below(6)).map { _ in pieces[below(pieces.count)] }.joined())
            case 1: return .signed([Int64.min, Int64.max, 0, -1, Int64(bitPattern: next())][below(5)])
            case 2: return .unsigned([UInt64.max, 0, next()][below(3)])
            case 3: return .byte(UInt8(truncatingIfNeeded: next()))
            case 4:
                let finite = Double(bitPattern: next())
                return .number(below(3) == 0 && finite.isFinite ? finite : numbers[below(numbers.count)])
            case 5: return .flag(below(2) == 0)
            case 6: return .instant(Date(nanosecondsSinceEpoch: Int64(bitPattern: next()) % 4_000_000_000_000_000_000))
            case 7, 8: return .object(keys.compactMap { key in below(3) == 0 ? nil : (key, below(5) == 0 ? nil : tree(depth: depth + 1)) })
            default: return .array((0..<below(4)).map { _ in tree(depth: depth + 1) })
            }
        }
    }

    static func foundation(_ tree: Tree, _ formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting.union([.sortedKeys, .withoutEscapingSlashes])
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(EvidenceJSON.instant(date))
        }
        return String(decoding: try encoder.encode(tree), as: UTF8.self)
    }

    static func writer(_ tree: Tree, _ layout: EvidenceJSONWriter.Layout) throws -> String {
        var json = EvidenceJSONWriter(layout: layout)
        try json.value(tree)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    @Test func randomDocumentsAreWrittenAsFoundationWritesThemPrettyAndOnOneLine() throws {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        for _ in 0..<3_000 {
            let tree = random.below(2) == 0 ? Tree.array([random.tree(depth: 0)]) : random.tree(depth: 0)
            let (pretty, line) = (try Self.writer(tree, .pretty), try Self.writer(tree, .line))
            let (foundationPretty, foundationLine) = (try Self.foundation(tree, .prettyPrinted), try Self.foundation(tree, []))
            #expect(pretty == foundationPretty)
            #expect(line == foundationLine)
        }
    }

    @Test(arguments: numbers)
    func aNumberIsWrittenAsFoundationWritesIt(number: Double) throws {
        let (written, foundation) = (try Self.writer(.number(number), .line), try Self.foundation(.number(number), []))
        #expect(written == foundation)
    }

    @Test func everyCharacterBelowTheSpaceAndTheQuoteAndBackslashAreEscapedAsFoundationEscapesThem() throws {
        for piece in Self.pieces {
            let (written, foundation) = (try Self.writer(.string(piece), .line), try Self.foundation(.string(piece), []))
            #expect(written == foundation)
        }
    }

    @Test func aDocumentWrittenToAnOutputInPiecesIsTheDocumentWrittenWhole() throws {
        var random = Random(state: 42)
        let tree = Tree.array((0..<200).map { _ in random.tree(depth: 1) })
        let pieces = EvidenceDocumentTests.Pieces()
        var json = EvidenceJSONWriter(output: pieces, pieceSize: 512)
        try json.value(tree)
        try json.flush()
        #expect(try String(decoding: pieces.bytes, as: UTF8.self) == Self.writer(tree, .pretty))
        #expect(pieces.count > 10)
    }
}
