// swift-tools-version:6.0
import PackageDescription

// The module graph runs one way: pure model and rules at the bottom, I/O at the edges,
// the two executables thin on top. Debian's C libraries come in as system libraries.
let package = Package(
    name: "TunnelVision",
    products: [
        .executable(name: "tunnelvisiond", targets: ["tunnelvisiond"]),
        .executable(name: "tvctl", targets: ["tvctl"]),
    ],
    targets: [
        // Debian's C libraries.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPcap", path: "Sources/CPcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZip", path: "Sources/CZip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", providers: [.apt(["libcairo2-dev"])]),
        // epoll and eventfd from the C library, for the relay's event loop.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),

        // Pure: value types of the audit model and the history.
        .target(name: "TunnelVisionModel"),
        // Pure: findings, release diff, requirement catalogues (the library reads catalogue files).
        .target(name: "TunnelVisionAudit", dependencies: ["TunnelVisionModel"]),
        // Pure: packet, TLS, QUIC, DNS and HTTP parsers (QUIC Initial keys through libcrypto).
        .target(name: "TunnelVisionWire", dependencies: ["TunnelVisionModel", "COpenSSL"]),
        // Pure: the flow engine (reassembly, flow table, DNS attribution) over the parsers.
        .target(name: "TunnelVisionFlows", dependencies: ["TunnelVisionModel", "TunnelVisionWire"]),
        // I/O: the TLS inspection relay (issue 12): the ClientHello hold, the decision, the outcome
        // machine (pure), the CA and leaves, and its epoll loop over OpenSSL.
        .target(name: "TunnelVisionRelay", dependencies: ["TunnelVisionModel", "TunnelVisionWire", "COpenSSL", "CEpoll"]),
        // I/O: the history and audit store over one SQLite file.
        .target(name: "TunnelVisionStore", dependencies: ["TunnelVisionModel", "CSQLite"]),
        // I/O: capture files, the TUN tap, libpcap inputs, retention, the daemon's runtime.
        .target(name: "TunnelVisionCapture", dependencies: [
            "TunnelVisionModel", "TunnelVisionWire", "TunnelVisionFlows", "TunnelVisionStore", "CPcap",
        ]),
        // Pure: the documents of an evidence bundle, the report and its page layout.
        .target(name: "TunnelVisionEvidence", dependencies: ["TunnelVisionModel", "TunnelVisionAudit"]),
        // I/O: capture.pcapng, report.pdf (cairo), manifest digests, the zip and the exporter.
        .target(name: "TunnelVisionExport", dependencies: [
            "TunnelVisionModel", "TunnelVisionAudit", "TunnelVisionEvidence", "TunnelVisionStore",
            "TunnelVisionCapture", "COpenSSL", "CZip", "CCairo",
        ]),
        // The library under tvctl: commands, presentation, error classification.
        .target(name: "TunnelVisionControl", dependencies: [
            "TunnelVisionModel", "TunnelVisionAudit", "TunnelVisionStore", "TunnelVisionEvidence",
            "TunnelVisionExport", "TunnelVisionCapture",
        ]),

        .executableTarget(name: "tunnelvisiond", dependencies: ["TunnelVisionCapture", "TunnelVisionStore", "TunnelVisionModel"]),
        .executableTarget(name: "tvctl", dependencies: ["TunnelVisionControl"]),
        // Developer tool: the engine's reading of a capture as JSON, throughput runs, synthetic captures.
        .executableTarget(name: "tvwire", dependencies: [
            "TunnelVisionCapture", "TunnelVisionFlows", "TunnelVisionWire", "TunnelVisionStore",
        ]),

        // Developer tool: the relay alone, for its lab check and its benchmark.
        .executableTarget(name: "tvrelay", dependencies: ["TunnelVisionRelay", "TunnelVisionModel"]),

        .testTarget(name: "TunnelVisionModelTests", dependencies: ["TunnelVisionModel"]),
        // A second process for the store's concurrency tests.
        .executableTarget(name: "StoreProbe", dependencies: ["TunnelVisionStore", "TunnelVisionModel"], path: "Tests/StoreProbe"),
        .testTarget(name: "TunnelVisionStoreTests", dependencies: ["TunnelVisionStore", "TunnelVisionModel", "StoreProbe"]),
        .testTarget(name: "TunnelVisionAuditTests", dependencies: ["TunnelVisionAudit", "TunnelVisionModel"]),
        .testTarget(name: "TunnelVisionRelayTests", dependencies: ["TunnelVisionRelay", "TunnelVisionWire", "TunnelVisionModel"]),
        .testTarget(name: "TunnelVisionWireTests", dependencies: ["TunnelVisionWire", "TunnelVisionModel"]),
        .testTarget(name: "TunnelVisionFlowsTests", dependencies: [
            "TunnelVisionFlows", "TunnelVisionWire", "TunnelVisionModel", "TunnelVisionCapture",
        ]),
        .testTarget(name: "TunnelVisionCaptureTests", dependencies: ["TunnelVisionCapture", "TunnelVisionStore", "TunnelVisionModel"]),
        .testTarget(name: "TunnelVisionEvidenceTests", dependencies: ["TunnelVisionEvidence", "TunnelVisionAudit", "TunnelVisionModel"]),
        .testTarget(name: "TunnelVisionExportTests", dependencies: [
            "TunnelVisionExport", "TunnelVisionEvidence", "TunnelVisionStore", "TunnelVisionAudit", "TunnelVisionModel",
            "TunnelVisionCapture",
        ]),
        .testTarget(
            name: "TunnelVisionControlTests", dependencies: ["TunnelVisionControl", "TunnelVisionStore", "TunnelVisionModel"],
            exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
