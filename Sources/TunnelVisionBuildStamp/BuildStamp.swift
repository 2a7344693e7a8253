import TunnelVisionModel

/// This build by name, as the executables print it and every record stores it: the release and
/// the commit its sources were at (`0.1.0+1a2b3c4d5e6f`). Only the executables link it, so that a
/// new commit relinks them and recompiles nothing below.
public enum BuildStamp {
    /// Twelve hex digits, `.modified` after them when the sources differed from the commit, or
    /// `unknown` for a build outside a git checkout.
    public static let commit = buildCommit
    public static let version = "\(TunnelVisionBuild.version)+\(buildCommit)"
}
