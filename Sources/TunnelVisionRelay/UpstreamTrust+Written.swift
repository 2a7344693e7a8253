extension UpstreamTrust {
    /// The word `upstream_trust` in tunnelvisiond.conf and tvrelay's `--trust` give for the
    /// system's store; any other value names a PEM bundle.
    public static let systemWord = "system"

    /// The trust a configuration value or a flag names, read in one place.
    public init(written text: String) {
        self = text == Self.systemWord ? .system : .bundle(path: text)
    }
}
