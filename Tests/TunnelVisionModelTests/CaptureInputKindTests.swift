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

    @Test(arguments: [CaptureInput.tun(name: "tv0"), .interface(name: "eth0"), .file(path: "/tmp/a:b.pcap")])
    func anInputReadsBackFromItsLabel(input: CaptureInput) {
        #expect(CaptureInput(label: input.label) == input)
        #expect(CaptureInputKind(label: input.label) == input.kind)
    }

    @Test(arguments: ["tun:", "tunnel:tv0", "tv0", ""])
    func aLabelWithoutAKnownKindOrANameIsNoInput(label: String) {
        #expect(CaptureInput(label: label) == nil)
    }
}
