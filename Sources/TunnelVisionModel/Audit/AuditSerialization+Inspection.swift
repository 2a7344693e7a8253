/// The inspection mode on disk and in text: the integer of `audit_sessions.inspection_mode` and
/// the word `tvctl session start --inspection` takes and every document writes. Both are format:
/// never renumber or rename a case.
extension AuditSerialization {
    public enum InspectionModeCode: Int64, Sendable, CaseIterable {
        case off = 0
        case pinning = 1
        case untrustedIssuer = 2
        case wrongName = 3
        case expired = 4
    }

    public static func code(of mode: InspectionMode) -> InspectionModeCode {
        switch mode {
        case .off: .off
        case .pinning: .pinning
        case .validation(.untrustedIssuer): .untrustedIssuer
        case .validation(.wrongName): .wrongName
        case .validation(.expired): .expired
        }
    }

    /// Nil when the stored integer is not one this version can read.
    public static func inspectionMode(code: Int64) -> InspectionMode? {
        switch InspectionModeCode(rawValue: code) {
        case .off: .off
        case .pinning: .pinning
        case .untrustedIssuer: .validation(.untrustedIssuer)
        case .wrongName: .validation(.wrongName)
        case .expired: .validation(.expired)
        case nil: nil
        }
    }

    public static func name(of mode: InspectionMode) -> String {
        switch mode {
        case .off: "off"
        case .pinning: "pinning"
        case .validation(let defect): name(of: defect)
        }
    }

    public static func name(of defect: CertificateDefect) -> String {
        switch defect {
        case .untrustedIssuer: "untrusted-issuer"
        case .wrongName: "wrong-name"
        case .expired: "expired"
        }
    }

    /// Nil for a word that names no mode.
    public static func inspectionMode(name: String) -> InspectionMode? {
        InspectionMode.allCases.first { self.name(of: $0) == name }
    }
}
