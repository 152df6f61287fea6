#ifndef CNCURSES_H
#define CNCURSES_H

#include <stdint.h>

// A narrow, typed facade over ncursesw for UploaderTUI. Every function must be called from the
// single thread that owns the terminal; none of them is variadic, and no ncurses macro or global
// (stdscr, LINES, COLS, A_*, COLOR_PAIR) crosses into Swift.

/// Style bits understood by cn_put_cell: low 4 bits a colour index (0 = terminal default).
#define CN_STYLE_COLOR_MASK 0x0F
#define CN_STYLE_BOLD 0x10
#define CN_STYLE_DIM 0x20
#define CN_STYLE_REVERSE 0x40
#define CN_STYLE_UNDERLINE 0x80

/// What cn_read reported.
#define CN_READ_NONE 0       // timeout, nothing read
#define CN_READ_CHAR 1       // *value is a Unicode scalar
#define CN_READ_KEY 2        // *value is a CN_KEY_* code
#define CN_READ_RESIZE 3     // the terminal was resized
#define CN_READ_MOUSE 4      // *value is a mouse event: CN_MOUSE_* << 24 | row << 12 | column (each < 4096)
#define CN_READ_SKIP 5       // something to ignore (a mouse event of no interest); read on

#define CN_MOUSE_PRESS 1
#define CN_MOUSE_WHEEL_UP 2
#define CN_MOUSE_WHEEL_DOWN 3

#define CN_KEY_UP 1
#define CN_KEY_DOWN 2
#define CN_KEY_LEFT 3
#define CN_KEY_RIGHT 4
#define CN_KEY_PAGE_UP 5
#define CN_KEY_PAGE_DOWN 6
#define CN_KEY_HOME 7
#define CN_KEY_END 8
#define CN_KEY_ENTER 9
#define CN_KEY_BACKSPACE 10
#define CN_KEY_DELETE 11
#define CN_KEY_BACK_TAB 12
#define CN_KEY_OTHER 99

/// Calls setlocale(LC_ALL, "") and returns 1 when the resulting codeset is UTF-8.
int cn_setlocale_is_utf8(void);

/// Starts curses on stdin/stdout with newterm, reads not blocking (see cn_wait). Returns -1 when the
/// terminal cannot be used, else a bit set: 1 = colours are active. SIGTSTP and SIGCONT (when not ignored) only
/// write to `wake_fd` from then on; the curses thread acts on them in cn_job_control.
int cn_start(int want_color, int wake_fd);

/// Restores the terminal (endwin) and frees the screen. Safe to call once after cn_start.
void cn_stop(void);

/// On the curses thread after each wait: after a Ctrl-Z, gives the terminal back and stops the process; after
/// any resume, takes the terminal again at its current size. Returns 1 when the screen resumed, so the caller
/// redraws all of it (possibly at a new size), else 0.
int cn_job_control(void);

/// Leaves curses mode from any thread just before the process exits (a second Ctrl-C); nothing is freed.
void cn_restore_for_exit(void);

/// Asks the terminal to report left-button presses and wheel steps (1), or nothing (0). While on, the terminal
/// selects text only with Shift held.
void cn_enable_mouse(int on);

/// COLORS: the colours the terminal can show (2^24 for a `*-direct` terminfo, whose colour numbers are RGB).
int cn_color_count(void);

/// Writes `▀` at a cell with the foreground `upper` and the background `lower`: colour numbers as `cn_color_count`
/// allows, -1 for the terminal's default. Pairs come from ncurses' own bounded cache (`alloc_pair`).
void cn_put_pixel(int y, int x, int upper, int lower);

/// Current size of the screen.
int cn_rows(void);
int cn_cols(void);

/// Reads one pending key or resize without waiting; CN_READ_NONE when there is none.
int cn_read(uint32_t *value);

/// A pipe whose write end wakes cn_wait (both ends close-on-exec, non-blocking): fds[0] read, fds[1] write.
/// Returns 0, or -1 with errno.
int cn_wake_open(int fds[2]);

/// Makes the next (or the current) cn_wait on the pipe return at once; callable from any thread.
void cn_wake(int write_fd);

/// Waits until stdin has input, `wake_fd` was woken, a signal arrived or `timeout_ms` passed, and empties
/// the pipe. Returns 1 when there may be something for cn_read (input or a signal such as SIGWINCH), else 0.
int cn_wait(int wake_fd, int timeout_ms);

/// Writes one cell: `scalars` holds the grapheme's scalars (the first is the spacing one).
/// `width` is the cell width the caller measured (1 or 2).
void cn_put_cell(int y, int x, const uint32_t *scalars, int count, int width, int style);

/// Flushes pending writes to the terminal.
void cn_refresh(void);

/// Writes bytes straight to the terminal, outside curses' picture of the screen (an OSC 52 clipboard
/// sequence). Call after cn_refresh, so they never land inside a frame.
void cn_write_raw(const char *bytes, long count);

/// Forces the next refresh to repaint the whole screen.
void cn_invalidate(void);

#endif
