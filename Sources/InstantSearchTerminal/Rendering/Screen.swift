import CNcurses
#if canImport(Glibc)
import Glibc
#endif

/// The terminal, through ncursesw: a ``Canvas`` that draws into ncurses' screen and reads
/// keys (wide characters included) without blocking.
///
/// ncurses keeps its state in globals and is not thread-safe, so everything here runs on the
/// main actor; a thread that waits for input only polls the descriptor and never calls it.
@MainActor
public final class Screen: Canvas {
    private var open = false

    /// Takes over the terminal: the user's locale (UTF-8 text), no echo, keys as they are
    /// typed (Ctrl-C included), Esc without the usual one-second wait, colors where the terminal has them.
    public init() {
        setlocale(LC_ALL, "")
        _ = fs_ensure_utf8_ctype()  // titles are UTF-8 whatever the user's locale says
        initscr()
        open = true
        raw()  // Ctrl-C and Ctrl-Z are keys the dashboard handles, not signals

        noecho()
        nonl()
        keypad(fs_stdscr(), true)
        nodelay(fs_stdscr(), true)
        set_escdelay(25)
        curs_set(0)
        _ = fs_mouse_on()
        if has_colors() {
            start_color()
            use_default_colors()
            init_pair(1, Int16(COLOR_YELLOW), -1)
            init_pair(2, Int16(COLOR_RED), -1)
            init_pair(3, Int16(COLOR_GREEN), -1)
        }
    }

    /// Gives the terminal back (also done when the screen goes away).
    public func close() {
        guard open else { return }
        open = false
        endwin()
    }

    isolated deinit { close() }

    public var size: (rows: Int, cols: Int) { (Int(fs_lines()), Int(fs_cols())) }

    /// Starts a frame: everything is erased (drawn again by the panes).
    public func begin() { fs_erase() }

    /// Shows the frame drawn since ``begin()``.
    public func show() { fs_refresh() }

    public func put(_ text: String, y: Int, x: Int, maxWidth: Int, style: Style) {
        let (rows, cols) = size
        guard y >= 0, y < rows, x >= 0, x < cols, maxWidth > 0 else { return }
        let shown = TextWidth.truncate(TextWidth.printable(text), to: min(maxWidth, cols - x))
        fs_attr_set(attributes(style))
        fs_move(Int32(y), Int32(x))
        var wide = shown.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
        wide.append(0)
        _ = fs_addnwstr(wide, Int32(wide.count - 1))
        fs_attr_set(fs_normal())
    }

    private func attributes(_ style: Style) -> attr_t {
        switch style {
        case .normal: return fs_normal()
        case .bold: return fs_bold()
        case .highlight: return fs_bold() | fs_color_pair(1)
        case .selected: return fs_reverse()
        case .dim: return fs_dim()
        case .error: return fs_bold() | fs_color_pair(2)
        case .ok: return fs_color_pair(3)
        }
    }

    /// The next key typed, nil when none is waiting.
    public func readKey() -> Key? {
        var c: wint_t = 0
        let r = fs_get_wch(&c)
        if r == fs_err() { return nil }
        if r == fs_key_code_yes() {
            switch Int32(c) {
            case fs_key_resize(): return .resize
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_LEFT: return .left
            case KEY_RIGHT: return .right
            case KEY_PPAGE: return .pageUp
            case KEY_NPAGE: return .pageDown
            case KEY_HOME: return .home
            case KEY_END: return .end
            case KEY_BACKSPACE: return .backspace
            case KEY_DC: return .delete
            case KEY_BTAB: return .backTab
            case KEY_ENTER: return .enter
            case (KEY_F0 + 1)...(KEY_F0 + 12): return .function(Int(Int32(c) - KEY_F0))
            case fs_key_mouse():
                var y: Int32 = 0
                var x: Int32 = 0
                switch fs_read_mouse(&y, &x) {
                case 1: return .mouse(MouseEvent(.click, y: Int(y), x: Int(x)))
                case 2: return .mouse(MouseEvent(.wheelUp, y: Int(y), x: Int(x)))
                case 3: return .mouse(MouseEvent(.wheelDown, y: Int(y), x: Int(x)))
                default: return readKey()
                }
            default: return readKey()
            }
        }
        switch c {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(c + 96)!))
        default:
            guard let scalar = Unicode.Scalar(c) else { return readKey() }
            return .character(Character(scalar))
        }
    }
}
