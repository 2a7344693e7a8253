/// What makes a directory fit to hold the daemon's secrets (the inspection CA's key, the
/// recordings' validation CAs): a real directory, not a link to one, owned by the daemon's user
/// and writable by no one else. Inside a directory a group member can write, a member could
/// swap in files or links of their own; in one they own, they could read what is written there.
/// The decision alone, over what `fstat` said of a descriptor opened with `O_NOFOLLOW`.
public enum PrivateDirectory {
    /// Why a directory is refused.
    public enum Problem: Sendable, Hashable {
        /// A symbolic link, or not a directory at all.
        case notADirectory
        /// Someone other than the daemon's user owns it.
        case ownedBy(user: UInt32, expected: UInt32)
        /// Its group or everyone may create and rename entries in it (the mode, permission bits).
        case writableByOthers(mode: UInt32)
    }

    /// nil when a directory with this owner and mode (st_mode) may hold the daemon's secrets.
    public static func problem(fileMode: UInt32, owner: UInt32, expectedOwner: UInt32) -> Problem? {
        guard fileMode & 0o170000 == 0o040000 else { return .notADirectory }
        guard owner == expectedOwner else { return .ownedBy(user: owner, expected: expectedOwner) }
        guard fileMode & 0o022 == 0 else { return .writableByOthers(mode: fileMode & 0o7777) }
        return nil
    }
}
