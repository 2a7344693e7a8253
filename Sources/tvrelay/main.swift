import Foundation
import TunnelVisionModel
import TunnelVisionRelay

// tvrelay: the relay alone, for its lab check and its benchmark. Each report is printed as one
// JSON line on stdout (flushed at once), so a script can wait for a connection's outcome.
//
//   tvrelay --port 8443 --ca-key FILE --ca-cert FILE [--trust system|PEMFILE] [--off] [--ports 443,8443]
//           [--keylog FILE] [--no-mirror: show the CA's leaf for a server that did not verify]
//           [--quiet: no reports, for the benchmark]

struct Options {
    var port: UInt16 = 8443
    var keyPath = ""
    var certificatePath = ""
    var trust = UpstreamTrust.system
    var enabled = true
    var ports: Set<UInt16> = [443]
    var keyLogPath: String?
    var quiet = false
    var mirror = true

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--port": guard let port = UInt16(try value(flag)) else { throw UsageError("--port needs a port number") }; self.port = port
            case "--ca-key": keyPath = try value(flag)
            case "--ca-cert": certificatePath = try value(flag)
            case "--trust": trust = UpstreamTrust(written: try value(flag))
            case "--off": enabled = false
            case "--quiet": quiet = true
            case "--no-mirror": mirror = false
            case "--keylog": keyLogPath = try value(flag)
            case "--ports":
                let list = try value(flag).split(separator: ",").compactMap { UInt16($0) }
                guard !list.isEmpty else { throw UsageError("--ports needs port numbers") }
                ports = Set(list)
            default: throw UsageError("unknown option \(flag)")
            }
        }
        guard !keyPath.isEmpty, !certificatePath.isEmpty else { throw UsageError("--ca-key and --ca-cert are required") }
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = "tvrelay: " + text }
}

final class PrintingObserver: RelayObserver, @unchecked Sendable {
    let quiet: Bool
    let keyLog: FileHandle?

    init(quiet: Bool, keyLogPath: String?) {
        self.quiet = quiet
        if let keyLogPath {
            _ = FileManager.default.createFile(atPath: keyLogPath, contents: nil, attributes: [.posixPermissions: 0o600])
            keyLog = FileHandle(forWritingAtPath: keyLogPath)
        } else {
            keyLog = nil
        }
    }

    func relayWillAnswer(_ leg: RelayPhoneLeg) {
        guard !quiet else { return }
        emit(["notice": quote("answering"), "phone": quote(leg.phone.description)])
    }

    func relayDidRollBack(_ leg: RelayPhoneLeg) {
        guard !quiet else { return }
        emit(["notice": quote("rolledBack"), "phone": quote(leg.phone.description)])
    }

    func relayDidReport(_ report: RelayReport) {
        if report.isFinal, let keyLog, !report.keyLog.isEmpty {
            keyLog.write(Data((report.keyLog.joined(separator: "\n") + "\n").utf8))
        }
        guard !quiet else { return }
        var fields: [String: String] = [
            "notice": quote("report"),
            "phone": quote(report.phoneLeg.phone.description),
            "destination": quote(report.phoneLeg.originalDestination.description),
            "final": report.isFinal ? "true" : "false",
            "decision": report.decision.map { quote($0.kind.name) } ?? "null",
            "sni": report.serverName.map(quote) ?? "null",
            "sniSent": report.serverNameAsSent.map(quote) ?? "null",
            "alpnOffered": "[" + report.offeredApplicationProtocols.map(quote).joined(separator: ",") + "]",
            "keyLogLines": String(report.keyLog.count),
            "bytesFromPhone": String(report.bytesFromPhone),
            "bytesToPhone": String(report.bytesToPhone),
        ]
        switch report.outcome {
        case .inspected: fields["outcome"] = quote("inspected")
        case .notInspectable(let alert): fields["outcome"] = quote("notInspectable"); fields["alert"] = String(alert)
        case .notInspectableRemembered: fields["outcome"] = quote("notInspectableRemembered")
        case nil: fields["outcome"] = "null"
        }
        fields["event"] = report.event.map { quote($0.kind.name) } ?? "null"
        fields["presented"] = report.presentation.map { quote($0.name) } ?? "null"
        if case .handedToPlainUpstream(let reason)? = report.event { fields["reason"] = quote(reason) }
        if case .relayFailed(let reason)? = report.event { fields["reason"] = quote(reason) }
        if case .upstreamRefusedByPolicy(let refusal)? = report.event { fields["reason"] = quote(refusal.rawValue) }
        if case .relaySentAlert(let alert, let reason)? = report.event { fields["relayAlert"] = String(alert); fields["reason"] = quote(reason) }
        if case .phoneRefusedMirroredCertificate(let alert)? = report.event { fields["alert"] = String(alert) }
        if let upstream = report.upstream {
            fields["upstreamVersion"] = quote(upstream.negotiation.version.compactText)
            fields["upstreamCipher"] = quote(upstream.negotiation.cipherSuite.hex)
            fields["upstreamALPN"] = upstream.applicationProtocol.map(quote) ?? "null"
            fields["upstreamVerified"] = upstream.certificateVerified ? "true" : "false"
            fields["upstreamVerification"] = quote(upstream.verification)
        }
        emit(fields)
    }

    private let lock = NSLock()
    private func emit(_ fields: [String: String]) {
        let line = "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}\n"
        lock.lock()
        FileHandle.standardOutput.write(Data(line.utf8))
        lock.unlock()
    }

    private func quote(_ text: String) -> String { JSONText.quoted(text) }
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let configuration = RelayConfiguration(
        isEnabled: options.enabled, listenPort: options.port, inspectedPorts: options.ports,
        certificateAuthority: CertificateAuthorityFiles(keyPath: options.keyPath, certificatePath: options.certificatePath),
        upstreamTrust: options.trust, mirrorsUnverifiedUpstream: options.mirror)
    let relay = try RelayServer(configuration: configuration, observer: PrintingObserver(quiet: options.quiet, keyLogPath: options.keyLogPath))
    FileHandle.standardError.write(Data("tvrelay: listening on port \(relay.boundPort), CA \(relay.caFingerprint ?? "none")\n".utf8))
    signal(SIGPIPE, SIG_IGN)
    let stop = DispatchSource.makeSignalSource(signal: SIGTERM)
    signal(SIGTERM, SIG_IGN)
    stop.setEventHandler { relay.stop(); exit(0) }
    stop.resume()
    relay.start()
    dispatchMain()
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}
