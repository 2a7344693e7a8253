/// A certificate the relay presents on purpose so that the app should refuse it: what a
/// validation recording asks of every inspected connection.
public enum CertificateDefect: Sendable, Hashable, CaseIterable {
    /// Signed by a CA made for this recording alone and installed nowhere.
    case untrustedIssuer
    /// Signed by the installed CA, for a name that is not the one the app announced.
    case wrongName
    /// Signed by the installed CA, with a validity that ended before the recording began.
    case expired
}

/// What the relay does with the connections of one recording, chosen when it starts.
public enum InspectionMode: Sendable, Hashable {
    /// Nothing is inspected.
    case off
    /// Leaves for the announced name, signed by the installed CA: a refusal can be read as pinning.
    case pinning
    /// Leaves with one defect: an acceptance shows the certificate was not refused.
    case validation(CertificateDefect)

    public static let allCases: [InspectionMode] = [.off, .pinning] + CertificateDefect.allCases.map(Self.validation)

    /// Whether the relay terminates connections at all.
    public var inspects: Bool { self != .off }

    /// The defect every leaf of the recording carries; nil outside a validation recording.
    public var defect: CertificateDefect? {
        if case .validation(let defect) = self { return defect }
        return nil
    }
}
