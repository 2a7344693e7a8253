import Foundation
import Testing
import TunnelVisionModel

@Suite struct CaptureInputKindTests {
    @Test(arguments: [
        ("tun:tv0", CaptureInputKind?.some(.tun)), ("interface:eth0", .interface), ("file:/tmp/a:b.pcap", .file),
        ("tun", nil), ("tunnel:tv0", nil), ("", nil),
    ])
    func aLabelIsReadByItsFirstWord(label: String, kind: CaptureInputKind?) {
        #expect(CaptureInputKind(label: label) == kind)
        #expect(CaptureRun(id: 1, startedAt: .init(timeIntervalSince1970: 0), endedAt: nil, toolVersion: "t", input: label).inputKind == kind)
    }

    @Test func eachKindWritesTheLabelItReads() {
        for kind in CaptureInputKind.allCases {
            #expect(CaptureInputKind(label: kind.label("x")) == kind)
        }
        #expect(CaptureInputKind.file.label("/tmp/x.pcap") == "file:/tmp/x.pcap")
    }
}
