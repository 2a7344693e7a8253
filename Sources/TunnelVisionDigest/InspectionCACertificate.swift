import Foundation

/// The inspection CA's certificate as `tvctl ca` reads it from the daemon's PEM file: its DER
/// and the SHA-256 of the DER, the fingerprint sessions record. Nothing is validated
/// here; the daemon made the file.
public struct InspectionCACertificate: Sendable, Hashable {
    public let pem: String
    public let der: Data
    /// Lower-case hex, as the daemon publishes it.
    public let fingerprint: String

    /// Nil when the text holds no PEM certificate block.
    public init?(pem text: String) {
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex),
              let der = Data(base64Encoded: String(text[start.upperBound..<stop.lowerBound]), options: .ignoreUnknownCharacters),
              !der.isEmpty
        else { return nil }
        pem = String(text[start.lowerBound..<stop.upperBound]) + "\n"
        self.der = der
        fingerprint = SHA256Hasher.hex(of: der)
    }

    /// "AB:CD:…", as certificate viewers on phones show it.
    public var colonFingerprint: String {
        var pairs: [String] = []
        var index = fingerprint.startIndex
        while index < fingerprint.endIndex {
            let next = fingerprint.index(index, offsetBy: 2, limitedBy: fingerprint.endIndex) ?? fingerprint.endIndex
            pairs.append(fingerprint[index..<next].uppercased())
            index = next
        }
        return pairs.joined(separator: ":")
    }
}
