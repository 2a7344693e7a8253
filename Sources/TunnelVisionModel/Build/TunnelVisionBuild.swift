/// Facts of this build that the history records: a session's tool version, a bundle's
/// `exportedWith`, a capture session's daemon. Changed here and nowhere else.
public enum TunnelVisionBuild {
    public static let version = "0.1.0"
}
