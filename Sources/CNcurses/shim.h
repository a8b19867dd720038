// ncursesw, wide-character build. Its globals (stdscr, LINES, COLS) and macros (A_BOLD,
// COLOR_PAIR, KEY_RESIZE) are read through these functions: Swift 6 rejects a C library's
// mutable globals, and imports no function-like macros.
#include <wchar.h>
#include <locale.h>
#define NCURSES_WIDECHAR 1
#include <ncursesw/curses.h>

// POSIX declares wcwidth only under _XOPEN_SOURCE, which this header does not set (it would
// change glibc's declarations from those of Swift's Glibc module).
extern int wcwidth(wchar_t c);
static inline int fs_wcwidth(wchar_t c) { return wcwidth(c); }

#include <langinfo.h>
#include <string.h>
// Makes the character type UTF-8 if the process's locale is not (wcwidth and ncursesw read
// and write wide characters in it); returns whether it is UTF-8 now.
static inline int fs_ensure_utf8_ctype(void) {
    const char *codeset = nl_langinfo(CODESET);
    if (codeset && strcmp(codeset, "UTF-8") == 0) return 1;
    if (setlocale(LC_CTYPE, "C.UTF-8") || setlocale(LC_CTYPE, "en_US.UTF-8")) return 1;
    return 0;
}

static inline WINDOW *fs_stdscr(void) { return stdscr; }
static inline int fs_lines(void) { return LINES; }
static inline int fs_cols(void) { return COLS; }
static inline attr_t fs_bold(void) { return A_BOLD; }
static inline attr_t fs_reverse(void) { return A_REVERSE; }
static inline attr_t fs_dim(void) { return A_DIM; }
static inline attr_t fs_underline(void) { return A_UNDERLINE; }
static inline attr_t fs_normal(void) { return A_NORMAL; }
static inline attr_t fs_color_pair(int n) { return COLOR_PAIR(n); }
static inline int fs_key_resize(void) { return KEY_RESIZE; }
static inline int fs_key_code_yes(void) { return KEY_CODE_YES; }
static inline int fs_err(void) { return ERR; }
static inline int fs_attr_set(attr_t a) { return attrset(a); }
static inline int fs_move(int y, int x) { return move(y, x); }
static inline int fs_clrtoeol(void) { return clrtoeol(); }
static inline int fs_erase(void) { return erase(); }
static inline int fs_refresh(void) { return refresh(); }
static inline int fs_get_wch(wint_t *c) { return get_wch(c); }
static inline int fs_addnwstr(const wchar_t *s, int n) { return addnwstr(s, n); }

// The mouse: clicks of the first button and the wheel (buttons 4 and 5), reported at once (no
// double-click wait). Returns whether the terminal reports any.
static inline int fs_mouse_on(void) {
    mouseinterval(0);
    return mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL) != 0;
}
static inline int fs_key_mouse(void) { return KEY_MOUSE; }
// The mouse event behind a KEY_MOUSE: 1 a click, 2 the wheel up, 3 the wheel down, 0 none
// (or another button); its cell in *y, *x.
static inline int fs_read_mouse(int *y, int *x) {
    MEVENT e;
    if (getmouse(&e) != OK) return 0;
    *y = e.y;
    *x = e.x;
    if (e.bstate & BUTTON4_PRESSED) return 2;
    if (e.bstate & BUTTON5_PRESSED) return 3;
    if (e.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    return 0;
}
