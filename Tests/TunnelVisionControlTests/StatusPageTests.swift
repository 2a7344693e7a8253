import Foundation
import Testing
import TunnelVisionModel
@testable import TunnelVisionControl

/// `tvctl status` says how the tap behaves under load only where it can wait: the inline tap.
@Suite struct StatusPageTests {
    private static let now = Date(timeIntervalSince1970: 1_791_550_000)

    private func page(input: String?) -> String {
        let capture = input.map { CaptureRun(id: 3, startedAt: Instant(Self.now), endedAt: nil, toolVersion: "0.9.0", input: $0) }
        let status = DaemonStatus(
            heartbeat: nil, captureRun: capture, inspectionEnabled: false, inspectingCAFingerprint: nil, relayPort: nil,
            recorderBacklog: .wait, recorderWaitMilliseconds: 1000, recordings: [], captureFiles: [], historyBytes: 0, freeBytes: nil)
        return StatusPage.page(status, rates: nil, now: Self.now, zone: TimeZone(identifier: "UTC") ?? .current, database: "h.sqlite",
                               style: .plain).text
    }

    @Test(arguments: [("tun:tv0", true), ("interface:eth1", false), ("file:/tmp/a.pcap", false), ("tunnel:x", false)])
    func theUnderLoadLineBelongsToTheInlineTap(input: String, shown: Bool) {
        #expect(page(input: input).contains("Under load") == shown)
    }

    @Test func withoutACaptureSessionTheSettingIsStillSaid() {
        #expect(page(input: nil).contains("Under load"))
    }
}
