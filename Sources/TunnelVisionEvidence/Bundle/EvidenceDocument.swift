import Foundation

/// Where a document's bytes go as they are encoded: a member of the bundle's archive, or memory.
/// A long session's flows.json is tens of megabytes; written piece by piece, it is never held whole.
public protocol EvidenceOutput: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

extension EvidenceOutput {
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }
}

/// A document gathered in memory: for a test, or for a caller that wants the whole file.
public final class EvidenceBytes: EvidenceOutput {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }
}

/// One document of the bundle by name, encoded only when it is written out.
public struct EvidenceDocument {
    public let name: String
    private let body: (any EvidenceOutput) throws -> Void

    public init(name: String, body: @escaping (any EvidenceOutput) throws -> Void) {
        self.name = name
        self.body = body
    }

    /// A JSON document described only as Encodable: encoded whole, then written.
    public init(name: String, json value: some Encodable) {
        self.init(name: name) { try $0.write(Array(EvidenceJSON.encode(value))) }
    }

    /// A JSON document described for the writer: written out in pieces as it is made.
    public init(name: String, json value: some EvidenceJSONWritable) {
        self.init(name: name) { try EvidenceJSON.write(value, to: $0) }
    }

    public func write(to output: any EvidenceOutput) throws {
        try body(output)
    }

    /// The document encoded whole.
    public func file() throws -> EvidenceFile {
        let gathered = EvidenceBytes()
        try write(to: gathered)
        return EvidenceFile(name: name, data: Data(gathered.bytes))
    }
}
