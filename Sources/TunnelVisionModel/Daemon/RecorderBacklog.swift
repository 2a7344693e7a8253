/// What the inline tap does with a packet when every slot of the recorder's queue is taken.
/// One type for the daemon's configuration, its published settings and `tvctl status`.
public enum RecorderBacklog: String, Sendable, Hashable, CaseIterable {
    /// Evidence first, the default: the packet is forwarded only once it has a slot to be
    /// recorded in, so an overload slows the phone's TCP down instead of thinning the capture.
    /// The wait is bounded: a recorder that frees no slot for that long is taken as stuck, and
    /// packets are forwarded at once (rows without bytes) until it has caught up.
    case wait
    /// Forwarding first, what every daemon did before evidence first existed: the packet is forwarded at once and kept
    /// as a row without bytes.
    case forward

    /// How long a packet waits for a slot unless the configuration says otherwise: longer than a
    /// busy disk holds the recorder in one fdatasync (250 ms was not, measured with bench-datapath
    /// on a loaded machine), short enough that a stuck recorder costs the phone one retransmission.
    public static let defaultWaitMilliseconds = 1_000
}
