// swift-tools-version:6.0
import PackageDescription

// The module graph runs one way: pure model and rules at the bottom, I/O at the edges,
// the two executables thin on top. Debian's C libraries come in as system libraries.
let package = Package(
    name: "TunnelVision",
    products: [
        .executable(name: "tunnelvisiond", targets: ["tunnelvisiond"]),
        .executable(name: "tvctl", targets: ["tvctl"]),
        .executable(name: "tvconsole", targets: ["tvconsole"]),
    ],
    targets: [
        // Debian's C libraries.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPcap", path: "Sources/CPcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", providers: [.apt(["libssl-dev"])]),
        // Deflate and CRC-32 for the bundle's zip, which the exporter writes itself in one pass.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", providers: [.apt(["libcairo2-dev"])]),
        // The web console's HTTP and TLS (GnuTLS underneath); only tvconsole links it.
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        // HTTP for the RFC 3161 time-stamp request an export makes when the lab names a TSA.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The lab's archive: PostgreSQL's client library.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        // HTTP/2's HPACK inflater, for the requests read inside inspected connections.
        .systemLibrary(name: "CNghttp2", path: "Sources/CNghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // epoll and eventfd from the C library, for the relay's event loop.
        .systemLibrary(name: "CEpoll", path: "Sources/CEpoll"),

        // Pure: value types of the audit model and the history.
        .target(name: "TunnelVisionModel"),
        // The one SHA-256 (libcrypto) and hex of the tree, and the inspection CA's certificate as
        // its PEM file holds it: shared by the parsers, the relay, the capture files, the export
        // and tvctl ca, so that tvctl needs no exporter to show the CA.
        .target(name: "TunnelVisionDigest", dependencies: ["COpenSSL"]),
        // Pure: findings, release diff, requirement catalogues (the library reads catalogue files).
        .target(name: "TunnelVisionAudit", dependencies: ["TunnelVisionModel"]),
        // Pure: packet, TLS, QUIC, DNS and HTTP parsers (QUIC Initial keys through libcrypto).
        .target(name: "TunnelVisionWire", dependencies: ["TunnelVisionModel", "TunnelVisionDigest", "COpenSSL"]),
        // Pure: the flow engine (reassembly, flow table, DNS attribution) over the parsers.
        .target(name: "TunnelVisionFlows", dependencies: ["TunnelVisionModel", "TunnelVisionWire"]),
        // Pure: the requests the phone sent inside an inspected connection (HTTP/1.1 and HTTP/2,
        // headers through nghttp2's HPACK inflater), read incrementally with bounded memory.
        .target(name: "TunnelVisionRequests", dependencies: ["TunnelVisionModel", "CNghttp2"]),
        // I/O: the TLS inspection relay (docs/ARCHITECTURE.md § The relay): the ClientHello hold, the decision, the outcome
        // machine (pure), the CA and leaves, and its epoll loop over OpenSSL.
        .target(name: "TunnelVisionRelay", dependencies: ["TunnelVisionModel", "TunnelVisionWire", "TunnelVisionDigest", "TunnelVisionRequests", "COpenSSL", "CEpoll"]),
        // I/O: the history and audit store over one SQLite file.
        .target(name: "TunnelVisionStore", dependencies: ["TunnelVisionModel", "CSQLite"]),
        // I/O: the capture files on disk, over the model only: the rotating pcap writer, its
        // reader, file names and sequences, the pcapng blocks of a bundle, one byte writer.
        // Both the daemon and the unprivileged exporter read them; neither pulls libpcap in.
        // Each file's SHA-256 is taken while it is written and sealed with the daemon's Ed25519 key
        // (libcrypto), so that the exporter can check the files before it copies them.
        .target(name: "TunnelVisionCaptureFiles", dependencies: ["TunnelVisionModel", "TunnelVisionDigest", "COpenSSL"]),
        // The daemon, split by job; each module below depends only on the ones above it.
        // Pure: which capture files retention deletes and why it cannot delete more.
        .target(name: "TunnelVisionRetention", dependencies: ["TunnelVisionModel"]),
        // The daemon's log: every sentence it writes while running, and where the lines go.
        .target(name: "TunnelVisionDaemonLog", dependencies: ["TunnelVisionRetention", "TunnelVisionCaptureFiles"]),
        // I/O: the datapath: the TUN device and its forwarder, the passive tap (libpcap), the
        // rings to the recorder, their doorbell and the counters both sides keep.
        .target(name: "TunnelVisionDatapath", dependencies: [
            "TunnelVisionModel", "TunnelVisionWire", "TunnelVisionDaemonLog", "CPcap",
        ]),
        // Pure: tunnelvisiond.conf and the command line, parsed once into typed values.
        .target(name: "TunnelVisionConfiguration", dependencies: [
            "TunnelVisionModel", "TunnelVisionFlows", "TunnelVisionRelay", "TunnelVisionCaptureFiles", "TunnelVisionRetention",
        ]),
        // I/O: the recorder and its one commit path into the history: capture files, the flow
        // engine, the relay's inbox, the seal chain, retention at each rotation.
        .target(name: "TunnelVisionRecorder", dependencies: [
            "TunnelVisionModel", "TunnelVisionWire", "TunnelVisionFlows", "TunnelVisionStore", "TunnelVisionCaptureFiles",
            "TunnelVisionRelay", "TunnelVisionRetention", "TunnelVisionDaemonLog", "TunnelVisionDatapath",
        ]),
        // I/O: a pcap or pcapng file read (libpcap) and recorded through the recorder's commit path.
        .target(name: "TunnelVisionImport", dependencies: [
            "TunnelVisionModel", "TunnelVisionWire", "TunnelVisionFlows", "TunnelVisionStore", "TunnelVisionCaptureFiles",
            "TunnelVisionRecorder", "CPcap",
        ]),
        // I/O: the daemon's runtime: its threads, signals, start and stop, the relay beside the
        // tap, the mend of an interrupted run, the CA's regeneration, systemd's notification.
        .target(name: "TunnelVisionDaemon", dependencies: [
            "TunnelVisionModel", "TunnelVisionStore", "TunnelVisionCaptureFiles", "TunnelVisionRelay", "TunnelVisionRetention",
            "TunnelVisionDaemonLog", "TunnelVisionDatapath", "TunnelVisionConfiguration", "TunnelVisionRecorder",
            "TunnelVisionImport",
        ]),
        // Pure: the documents of an evidence bundle, the report and its page layout.
        .target(name: "TunnelVisionEvidence", dependencies: ["TunnelVisionModel", "TunnelVisionAudit"]),
        // I/O: capture.pcapng, report.pdf (cairo), manifest digests, the zip and the exporter.
        .target(name: "TunnelVisionExport", dependencies: [
            "TunnelVisionModel", "TunnelVisionAudit", "TunnelVisionEvidence", "TunnelVisionStore",
            "TunnelVisionCaptureFiles", "TunnelVisionDigest", "COpenSSL", "CZlib", "CCairo", "CCurl",
        ]),
        // I/O: the lab's archive in PostgreSQL (libpq): its schema, publishing a gateway's ended
        // recordings (whole rows, read from the history without the store) and reading them back
        // into a history the store and the audit rules read; the store's migrations bring a
        // recording of an older gateway forward. Never on the daemon's path.
        .target(name: "TunnelVisionArchive", dependencies: ["TunnelVisionModel", "TunnelVisionStore", "CSQLite", "CLibPQ"]),
        // The library under tvctl: commands, presentation, error classification. It reads the
        // history and exports; it never captures, so it links neither libpcap nor the engine.
        // libcrypto for the web console's password hash (scrypt).
        .target(name: "TunnelVisionControl", dependencies: [
            "TunnelVisionModel", "TunnelVisionAudit", "TunnelVisionStore", "TunnelVisionEvidence",
            "TunnelVisionExport", "TunnelVisionDigest", "TunnelVisionArchive", "COpenSSL",
        ]),
        // The web console's pages and routes over the Control library's commands and Wording:
        // routing, escaping, CSRF and login throttling as values; the HTTP server over
        // libmicrohttpd; its certificate through libcrypto.
        .target(name: "TunnelVisionConsole", dependencies: [
            "TunnelVisionControl", "TunnelVisionModel", "TunnelVisionStore", "TunnelVisionDigest", "CMicroHTTPD", "COpenSSL",
        ]),

        // The build's name (release and commit), generated before every build by the plugin below;
        // only the executables and the tests that run them link it.
        .target(name: "TunnelVisionBuildStamp", dependencies: ["TunnelVisionModel"], plugins: ["BuildStamp"]),
        .plugin(name: "BuildStamp", capability: .buildTool()),

        // The privileged capture daemon: parses its configuration, opens the history once and
        // hands it to the capture (live or --read).
        .executableTarget(name: "tunnelvisiond", dependencies: [
            "TunnelVisionDaemon", "TunnelVisionConfiguration", "TunnelVisionDaemonLog", "TunnelVisionRecorder",
            "TunnelVisionRelay", "TunnelVisionStore", "TunnelVisionModel", "TunnelVisionBuildStamp",
        ]),
        // The unprivileged CLI: a thin main over TunnelVisionControl.
        .executableTarget(name: "tvctl", dependencies: ["TunnelVisionControl", "TunnelVisionBuildStamp"]),
        // The web console: a thin main over TunnelVisionConsole, its own process and user, so
        // that libmicrohttpd stays out of tvctl and a flaw in it reaches no root and no daemon.
        .executableTarget(name: "tvconsole", dependencies: ["TunnelVisionConsole", "TunnelVisionBuildStamp"]),
        // Developer tool: the engine's reading of a capture as JSON, throughput runs, synthetic
        // captures, seeded exports for the foreign tools' check and the export benchmark.
        .executableTarget(name: "tvwire", dependencies: [
            "TunnelVisionImport", "TunnelVisionCaptureFiles", "TunnelVisionEvidence", "TunnelVisionFlows", "TunnelVisionWire", "TunnelVisionStore",
            "TunnelVisionExport", "TunnelVisionDigest", "EvidenceSeeding", "PacketBuilding",
        ]),

        // Developer tool: the relay alone, for its lab check and its benchmark.
        .executableTarget(name: "tvrelay", dependencies: ["TunnelVisionRelay", "TunnelVisionModel"]),

        // Hand-made packets and TLS records for the parsers' and the engine's tests and tvwire's
        // synthetic captures; no product links it.
        .target(name: "PacketBuilding", dependencies: ["TunnelVisionWire", "TunnelVisionModel", "COpenSSL"], path: "Tests/PacketBuilding"),
        // `tvfixture`: a seeded demo history, through tvctl's own command machinery, for the
        // tests, the console's tests and the lab's checks; no product links it.
        .target(name: "ControlFixture", dependencies: ["TunnelVisionControl", "TunnelVisionStore", "TunnelVisionModel"], path: "Tests/ControlFixture"),
        .executableTarget(name: "tvfixture", dependencies: ["ControlFixture", "TunnelVisionControl", "TunnelVisionBuildStamp"], path: "Tests/tvfixture"),
        .testTarget(name: "TunnelVisionModelTests", dependencies: ["TunnelVisionModel"]),
        // A second process for the store's concurrency tests.
        .executableTarget(name: "StoreProbe", dependencies: ["TunnelVisionStore", "TunnelVisionModel"], path: "Tests/StoreProbe"),
        .testTarget(name: "TunnelVisionStoreTests", dependencies: ["TunnelVisionStore", "TunnelVisionModel", "StoreProbe"]),
        .testTarget(name: "TunnelVisionAuditTests", dependencies: ["TunnelVisionAudit", "TunnelVisionModel"]),
        .testTarget(name: "TunnelVisionRelayTests", dependencies: [
            "TunnelVisionRelay", "TunnelVisionWire", "TunnelVisionModel", "COpenSSL", "PacketBuilding",
        ]),
        .testTarget(name: "TunnelVisionRequestsTests", dependencies: ["TunnelVisionRequests", "TunnelVisionModel", "CNghttp2"], exclude: ["Fixtures"]),
        .testTarget(name: "TunnelVisionWireTests", dependencies: ["TunnelVisionWire", "TunnelVisionModel", "PacketBuilding"]),
        .testTarget(name: "TunnelVisionFlowsTests", dependencies: [
            "TunnelVisionFlows", "TunnelVisionWire", "TunnelVisionModel", "TunnelVisionImport", "PacketBuilding",
        ]),
        // Test support shared by the capture suites: temporary directories, hand-made packets,
        // tshark's reading of a file.
        .target(name: "CaptureTestSupport", path: "Tests/CaptureTestSupport"),
        .testTarget(name: "TunnelVisionCaptureFilesTests", dependencies: [
            "TunnelVisionCaptureFiles", "TunnelVisionDigest", "TunnelVisionModel", "CaptureTestSupport",
        ]),
        .testTarget(name: "TunnelVisionCaptureTests", dependencies: [
            "TunnelVisionDaemon", "TunnelVisionConfiguration", "TunnelVisionImport", "TunnelVisionRecorder",
            "TunnelVisionDatapath", "TunnelVisionDaemonLog", "TunnelVisionRetention",
            "TunnelVisionCaptureFiles", "TunnelVisionStore", "TunnelVisionModel", "CaptureTestSupport",
            "TunnelVisionFlows", "TunnelVisionRelay",
        ]),
        .testTarget(name: "TunnelVisionConsoleTests", dependencies: [
            "TunnelVisionConsole", "TunnelVisionControl", "TunnelVisionStore", "TunnelVisionModel", "CaptureTestSupport", "ControlFixture",
        ]),
        .testTarget(name: "TunnelVisionArchiveTests", dependencies: [
            "TunnelVisionArchive", "TunnelVisionStore", "TunnelVisionModel", "TunnelVisionAudit", "EvidenceSeeding",
        ]),
        .testTarget(
            name: "TunnelVisionEvidenceTests", dependencies: ["TunnelVisionEvidence", "TunnelVisionAudit", "TunnelVisionModel"],
            exclude: ["Golden", "Bundle/Golden"]),
        // A history seeded the way the daemon writes one, for the exporter's tests and tvwire's
        // seeded exports.
        .target(name: "EvidenceSeeding", dependencies: ["TunnelVisionStore", "TunnelVisionCaptureFiles", "TunnelVisionModel"], path: "Tests/EvidenceSeeding"),
        .testTarget(name: "TunnelVisionExportTests", dependencies: [
            "TunnelVisionExport", "TunnelVisionEvidence", "TunnelVisionStore", "TunnelVisionAudit", "TunnelVisionModel",
            "TunnelVisionCaptureFiles", "TunnelVisionDigest", "EvidenceSeeding",
        ]),
        .testTarget(
            name: "TunnelVisionControlTests", dependencies: [
                "TunnelVisionControl", "TunnelVisionExport", "TunnelVisionStore", "TunnelVisionModel", "TunnelVisionBuildStamp",
                "CaptureTestSupport", "ControlFixture", "tvfixture",
            ],
            exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
