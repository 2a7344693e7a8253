import TunnelVisionExport
import TunnelVisionModel

/// What `tvctl key` and the signature of an export say.
extension Wording {
    static func sentence(for error: GatewayKeyError) -> String {
        switch error {
        case .notReadable(let path):
            "The gateway's signing key \(path) cannot be read, so nothing was signed: be in the tunnelvision group ('sudo adduser $USER tunnelvision', then log in again)."
        case .malformed(let path):
            "\(path) is not a key TunnelVision wrote, so nothing was signed with it: the administrator makes a new one with 'sudo tvctl key rotate'."
        case .notMade(let path, let reason):
            "The gateway's signing key could not be written at \(path) (\(reason)): check that the history's folder is there and writable by root."
        case .refused(let path, let problem):
            "\(path) \(why(problem)), so no key is taken from it and nothing was signed: the administrator moves it aside and runs 'sudo tvctl key create'."
        }
    }

    private static func why(_ problem: PrivateDirectory.Problem) -> String {
        switch problem {
        case .notADirectory: "is a symbolic link or not what it should be"
        case .ownedBy(let user, _): "belongs to user \(user), not to root"
        case .writableByOthers(let mode): "can be written by its group or others (mode \(String(mode, radix: 8)))"
        }
    }

    /// The line under a public key: its id and the command an auditor runs with it.
    static func keyUse(_ key: MinisignPublicKey) -> String {
        "Key id \(key.keyIDText). An auditor checks a bundle's manifest with: minisign -Vm manifest.json -P \(key.line)"
    }

    static func keyCreated(_ key: MinisignPublicKey, made: Bool) -> String {
        made ? "Made the gateway's signing key \(key.keyIDText); every export signs its manifest with it from now on."
            : "The gateway already has the signing key \(key.keyIDText); it was kept."
    }

    static func keyRotated(old: MinisignPublicKey?, new: MinisignPublicKey) -> String {
        let kept = old.map { "; \($0.keyIDText) is kept among the retired keys ('tvctl key show --all'), so bundles it signed still verify" } ?? ""
        return "Exports are now signed with the new key \(new.keyIDText)\(kept)."
    }

    static func retiredKeyHeading(_ key: MinisignPublicKey) -> String { "Retired key \(key.keyIDText):" }
    static func currentKeyHeading(_ key: MinisignPublicKey) -> String { "Current key \(key.keyIDText):" }

    /// Why an export with a configured TSA wrote nothing.
    static func timestampFailure(_ failure: TimestampError) -> String {
        let end = ", so nothing was kept: export again once it answers, or with --no-timestamp for a bundle that says it has none."
        return switch failure {
        case .queryNotMade: "libcrypto did not make the time-stamp query" + end
        case .unreachable(let url, let reason): "The time-stamping authority \(url) did not answer (\(reason))" + end
        case .httpStatus(let url, let code): "The time-stamping authority \(url) answered HTTP \(code) instead of a time-stamp reply" + end
        case .badReply(let url, .refused(let status)):
            "The time-stamping authority \(url) refused the request (PKIStatus \(status))" + end
        case .badReply(let url, _): "The time-stamping authority \(url) answered with something that is not an RFC 3161 time-stamp reply" + end
        case .otherDigest(let url): "The time-stamping authority \(url) answered with a token for another digest than the manifest's" + end
        case .otherNonce(let url): "The time-stamping authority \(url) answered with a token for another request than this one (its nonce differs)" + end
        }
    }

    /// Appended to an export's confirmation: the TSA's instant, or that none was asked although one is configured.
    static func timestamp(_ reply: TimestampReply?, skipped: String?) -> String {
        if let reply { return "; timestamped by \(reply.authority) at \(Formatting.iso8601(reply.instant))" }
        if let skipped { return "; no timestamp (--no-timestamp; \(skipped) was not asked)" }
        return ""
    }

    /// Appended to an export's confirmation.
    static func signature(keyID: String?) -> String {
        keyID.map { "manifest signed with gateway key \($0)" } ?? "not signed: this gateway has no signing key ('sudo tvctl key create')"
    }
}
