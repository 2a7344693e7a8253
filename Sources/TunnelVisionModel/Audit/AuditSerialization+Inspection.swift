/// The inspection mode as it is written: the integer of `audit_sessions.inspection_mode` and the
/// name `tvctl session start --inspection` takes and every document writes. Both are formats:
/// never renumber or rename a case.
extension AuditSerialization {
    public enum InspectionModeCode: Int64, Sendable, CaseIterable {
        case off = 0
        case pinning = 1
        case untrustedIssuer = 2
        case wrongName = 3
        case expired = 4

        public var name: String {
            switch self {
            case .off: "off"
            case .pinning: "pinning"
            case .untrustedIssuer: "untrusted-issuer"
            case .wrongName: "wrong-name"
            case .expired: "expired"
            }
        }

        public var mode: InspectionMode {
            switch self {
            case .off: .off
            case .pinning: .pinning
            case .untrustedIssuer: .validation(.untrustedIssuer)
            case .wrongName: .validation(.wrongName)
            case .expired: .validation(.expired)
            }
        }
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

    public static func name(of mode: InspectionMode) -> String { code(of: mode).name }

    public static func name(of defect: CertificateDefect) -> String { code(of: .validation(defect)).name }

    /// Nil when the stored integer is not one this version can read.
    public static func inspectionMode(code: Int64) -> InspectionMode? { InspectionModeCode(rawValue: code)?.mode }

    /// Nil for a name that is no mode.
    public static func inspectionMode(name: String) -> InspectionMode? {
        InspectionModeCode.allCases.first { $0.name == name }?.mode
    }
}
