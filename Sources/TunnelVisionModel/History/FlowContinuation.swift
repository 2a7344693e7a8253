/// A TCP flow whose record began after its connection had opened: the first packet of it the
/// tap read was not a SYN. Its opening — the SYN, and the first bytes that carry a name — crossed
/// before this record began, so the record has no name of its own to read, and its lack of one
/// is no sign of anything. Stored as 1…2; nil for a flow whose record began with its opening (or
/// any flow that is not TCP, or stored before the fact was kept).
public enum FlowContinuation: UInt8, Sendable, Hashable, CaseIterable, NamedByCase {
    /// First seen within the TCP idle timeout of the capture's start: the connection was open
    /// before this capture session began (a restart of the daemon, a capture file that begins
    /// mid-connection), and its opening was read, if at all, in an earlier one.
    case openedBeforeCapture = 1
    /// First seen later in the capture, or once the flow table had been full: its opening came
    /// before this record, in an earlier record of the same connection (which ended idle or was
    /// evicted while the connection lived on) or before the capture began.
    case openedBeforeRecord = 2
}
