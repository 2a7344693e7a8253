#if canImport(Glibc)
import Glibc
#endif

/// Single keys from standard input. On a terminal it switches off line editing and echo for
/// as long as it lives, so a key counts the moment it is pressed; from a pipe it reads bytes
/// as they come, which is how the tests press keys.
final class KeyReader {
    private var saved: termios?

    init() {
        guard isatty(STDIN_FILENO) == 1 else { return }
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        saved = settings
        // Ctrl-C arrives as a key (and quits) rather than a signal that would leave the terminal raw.
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        withUnsafeMutableBytes(of: &settings.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    deinit {
        restore()
    }

    func restore() {
        guard var saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        self.saved = nil
    }

    /// The next byte, or nil at the end of input.
    func next() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }
}
