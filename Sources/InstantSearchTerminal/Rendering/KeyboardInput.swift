import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Ticks of a terminal program's loop: one when the terminal has input, and one every 200 ms
/// anyway (a resize is noticed by ncurses' signal handler, and read as a key on the next
/// look). The thread only polls the descriptor: ncurses itself is called on the main actor,
/// where the loop reads the keys waiting (``Screen/readKey()``) at each tick:
///
///     for await _ in KeyboardInput.ticks() {
///         while let key = screen.readKey() { handle(key) }
///     }
public enum KeyboardInput {
    public static func ticks() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let thread = Thread {
            var stopped = false
            while !stopped {
                var p = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
                let r = poll(&p, 1, 200)
                if r > 0, p.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { stopped = true }
                if case .terminated = continuation.yield(()) { stopped = true }
                // Let the main actor read what is there before polling again.
                if r > 0 { usleep(5_000) }
            }
            continuation.finish()
        }
        thread.name = "fedsearch-keys"  // Linux keeps at most 15 bytes of a thread name, or none
        thread.start()
        return stream
    }
}
