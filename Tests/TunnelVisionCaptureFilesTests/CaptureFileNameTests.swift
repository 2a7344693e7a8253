import CaptureTestSupport
import Foundation
import Testing
@testable import TunnelVisionCaptureFiles

@Suite struct CaptureFileNameTests {
    @Test(arguments: [
        (UInt32(1), 0.0, "tunnelvision-000001-19700101-000000.pcap"),
        (42, 1_764_504_000.9, "tunnelvision-000042-20251130-120000.pcap"),
        (1_234_567, 1_709_164_799, "tunnelvision-1234567-20240228-235959.pcap"),
        (.max, 1_709_251_200, "tunnelvision-4294967295-20240301-000000.pcap"),
    ])
    func namesCarryTheSequenceAndTheUTCInstant(sequence: UInt32, seconds: Double, name: String) {
        #expect(CaptureFileName.name(sequence: sequence, createdAt: Date(timeIntervalSince1970: seconds)) == name)
        #expect(CaptureFileName.sequence(in: name) == sequence)
    }

    @Test(arguments: [
        "tunnelvision-000000-20250101-000000.pcap",  // 0 is never issued
        "tunnelvision-00001-20250101-000000.pcap",
        "tunnelvision-000001-20250101-000000.pcapng",
        "tunnelvision-000001-2025011-000000.pcap",
        "tunnelvision-+00001-20250101-000000.pcap",
        "tunnelvision-4294967296-20250101-000000.pcap",
        "capture-000001-20250101-000000.pcap",
        "tunnelvision-000001-20250101-000000-x.pcap",
    ])
    func otherNamesAreNotOurs(name: String) {
        #expect(CaptureFileName.sequence(in: name) == nil)
    }
}
