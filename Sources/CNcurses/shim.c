#define _GNU_SOURCE 1
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <langinfo.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>
#include <ncursesw/ncurses.h>
#include "CNcurses.h"

static SCREEN *cn_screen = NULL;
static int cn_colors = 0;
/// Set once stdin reports a hang-up, so cn_wait stops polling it (it would report it forever).
static int cn_stdin_gone = 0;

// Job control. ncurses' own SIGTSTP handler calls endwin and doupdate from whichever thread takes the signal,
// racing the curses thread: frames torn with shell text, a resize lost, and prog mode (no ONLCR) saved as the
// shell's, so the summary after exit had no carriage returns. The handlers here only note the signal and wake
// the curses thread, which suspends and resumes in cn_job_control.
static volatile sig_atomic_t cn_tstp_pending = 0;
static volatile sig_atomic_t cn_cont_pending = 0;
static int cn_signal_wake_fd = -1;
static int cn_tstp_installed = 0;
static int cn_cont_installed = 0;

static void cn_note_signal(int signal_number) {
    int saved = errno;
    if (signal_number == SIGTSTP) cn_tstp_pending = 1;
    else cn_cont_pending = 1;
    if (cn_signal_wake_fd >= 0) {
        char byte = 1;
        ssize_t ignored = write(cn_signal_wake_fd, &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

/// Installs `cn_note_signal` for `signal_number` when it has the default disposition: an ignored SIGTSTP (a
/// shell without job control) stays ignored. Returns 1 when installed.
static int cn_take_signal(int signal_number) {
    struct sigaction current;
    if (sigaction(signal_number, NULL, &current) != 0 || current.sa_handler != SIG_DFL) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cn_note_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signal_number, &action, NULL) == 0;
}

static void cn_release_signal(int signal_number, int *installed) {
    if (!*installed) return;
    signal(signal_number, SIG_DFL);
    *installed = 0;
}

int cn_setlocale_is_utf8(void) {
    setlocale(LC_ALL, "");
    const char *codeset = nl_langinfo(CODESET);
    if (codeset == NULL) return 0;
    return strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "utf8") == 0;
}

int cn_start(int want_color, int wake_fd) {
    if (cn_screen != NULL) return -1;
    // Before newterm: ncurses installs its own SIGTSTP handler only where it finds the default one.
    cn_signal_wake_fd = wake_fd;
    cn_tstp_pending = 0;
    cn_cont_pending = 0;
    cn_tstp_installed = cn_take_signal(SIGTSTP);
    cn_cont_installed = cn_take_signal(SIGCONT);
    cn_screen = newterm(NULL, stdout, stdin);
    if (cn_screen == NULL) {
        cn_release_signal(SIGTSTP, &cn_tstp_installed);
        cn_release_signal(SIGCONT, &cn_cont_installed);
        return -1;
    }
    set_term(cn_screen);
    cbreak();          // keeps ISIG: Ctrl-C stays a signal the executable handles
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    set_escdelay(25);  // Esc closes panes; the default 1 s delay feels broken
    curs_set(0);
    nodelay(stdscr, TRUE);  // cn_wait does the waiting, so a wake-up can end it early
    cn_stdin_gone = 0;
    scrollok(stdscr, FALSE);
    leaveok(stdscr, TRUE);
    cn_colors = 0;
    if (want_color && has_colors() && start_color() == OK) {
        use_default_colors();  // -1 background: readable on dark and light terminals
        static const short palette[] = {COLOR_RED, COLOR_GREEN, COLOR_YELLOW, COLOR_BLUE,
                                        COLOR_MAGENTA, COLOR_CYAN};
        for (short i = 0; i < 6; i++) init_pair((short)(i + 1), palette[i], -1);
        cn_colors = 1;
    }
    werase(stdscr);
    return cn_colors ? 1 : 0;
}

void cn_stop(void) {
    if (cn_screen == NULL) return;
    curs_set(1);
    endwin();
    delscreen(cn_screen);
    cn_screen = NULL;
    fflush(stdout);
    // A Ctrl-Z after the screen closed (the summary, the wait for the run's end) stops the process as usual.
    cn_release_signal(SIGTSTP, &cn_tstp_installed);
    cn_release_signal(SIGCONT, &cn_cont_installed);
    cn_signal_wake_fd = -1;
}

int cn_job_control(void) {
    if (cn_screen == NULL || (!cn_tstp_pending && !cn_cont_pending)) return 0;
    if (cn_tstp_pending) {
        cn_tstp_pending = 0;
        // The shell's modes back (ONLCR, echo, the cursor, the main screen) before the shell prints its prompt.
        endwin();
        fflush(stdout);
        struct sigaction ours, stop;
        memset(&stop, 0, sizeof stop);
        stop.sa_handler = SIG_DFL;
        sigemptyset(&stop.sa_mask);
        sigaction(SIGTSTP, &stop, &ours);
        sigset_t unblock, saved;
        sigemptyset(&unblock);
        sigaddset(&unblock, SIGTSTP);
        pthread_sigmask(SIG_UNBLOCK, &unblock, &saved);
        kill(getpid(), SIGTSTP);
        // Stopped here until SIGCONT (an orphaned process group is not stopped at all).
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
        sigaction(SIGTSTP, &ours, NULL);
    }
    cn_cont_pending = 0;
    // Also after a SIGSTOP from elsewhere: the shell took the terminal and set its own modes meanwhile.
    reset_prog_mode();
    // No SIGWINCH reaches a stopped process, so the size may have changed unseen.
    struct winsize size;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row > 0 && size.ws_col > 0 &&
        is_term_resized(size.ws_row, size.ws_col)) {
        resizeterm(size.ws_row, size.ws_col);
    }
    // The terminal holds the shell's text now: the next refresh repaints every cell.
    clearok(curscr, TRUE);
    return 1;
}

void cn_restore_for_exit(void) {
    if (cn_screen == NULL) return;
    curs_set(1);
    endwin();
    fflush(stdout);
}

int cn_rows(void) { return cn_screen ? getmaxy(stdscr) : 0; }
int cn_cols(void) { return cn_screen ? getmaxx(stdscr) : 0; }

void cn_enable_mouse(int on) {
    if (cn_screen == NULL) return;
    mousemask(on ? (BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED) : 0, NULL);
    // No click resolution: a press acts at once instead of after the default 166 ms wait for a release.
    mouseinterval(0);
}

static int cn_mouse(uint32_t *value) {
    MEVENT event;
    if (getmouse(&event) != OK || event.x < 0 || event.y < 0 || event.x >= 4096 || event.y >= 4096) {
        return CN_READ_SKIP;
    }
    uint32_t action;
    if (event.bstate & BUTTON1_PRESSED) action = CN_MOUSE_PRESS;
    else if (event.bstate & BUTTON4_PRESSED) action = CN_MOUSE_WHEEL_UP;
    else if (event.bstate & BUTTON5_PRESSED) action = CN_MOUSE_WHEEL_DOWN;
    else return CN_READ_SKIP;
    *value = action << 24 | (uint32_t)event.y << 12 | (uint32_t)event.x;
    return CN_READ_MOUSE;
}

int cn_read(uint32_t *value) {
    wint_t ch = 0;
    int status = wget_wch(stdscr, &ch);
    if (status == ERR) return CN_READ_NONE;
    if (status == KEY_CODE_YES) {
        switch (ch) {
        case KEY_RESIZE: return CN_READ_RESIZE;
        case KEY_MOUSE: return cn_mouse(value);
        case KEY_UP: *value = CN_KEY_UP; break;
        case KEY_DOWN: *value = CN_KEY_DOWN; break;
        case KEY_LEFT: *value = CN_KEY_LEFT; break;
        case KEY_RIGHT: *value = CN_KEY_RIGHT; break;
        case KEY_PPAGE: *value = CN_KEY_PAGE_UP; break;
        case KEY_NPAGE: *value = CN_KEY_PAGE_DOWN; break;
        case KEY_HOME: *value = CN_KEY_HOME; break;
        case KEY_END: *value = CN_KEY_END; break;
        case KEY_ENTER: *value = CN_KEY_ENTER; break;
        case KEY_BACKSPACE: *value = CN_KEY_BACKSPACE; break;
        case KEY_DC: *value = CN_KEY_DELETE; break;
        case KEY_BTAB: *value = CN_KEY_BACK_TAB; break;
        default: *value = CN_KEY_OTHER; break;
        }
        return CN_READ_KEY;
    }
    *value = (uint32_t)ch;
    return CN_READ_CHAR;
}

int cn_wake_open(int fds[2]) {
    return pipe2(fds, O_CLOEXEC | O_NONBLOCK);
}

void cn_wake(int write_fd) {
    char byte = 1;
    // A full pipe already holds a wake-up; nothing is lost when this write fails.
    ssize_t ignored = write(write_fd, &byte, 1);
    (void)ignored;
}

int cn_wait(int wake_fd, int timeout_ms) {
    struct pollfd fds[2] = {{.fd = wake_fd, .events = POLLIN}, {.fd = STDIN_FILENO, .events = POLLIN}};
    int count = poll(fds, cn_stdin_gone ? 1 : 2, timeout_ms);
    if (count < 0) return errno == EINTR;  // SIGWINCH interrupts the wait: cn_read reports the resize
    if (fds[0].revents & POLLIN) {
        char drain[64];
        while (read(wake_fd, drain, sizeof drain) > 0) {}
    }
    if (!cn_stdin_gone && (fds[1].revents & (POLLHUP | POLLERR | POLLNVAL)) && !(fds[1].revents & POLLIN)) {
        cn_stdin_gone = 1;
    }
    return (fds[1].revents & POLLIN) != 0;
}

static attr_t cn_attrs(int style) {
    attr_t attrs = A_NORMAL;
    if (style & CN_STYLE_BOLD) attrs |= A_BOLD;
    if (style & CN_STYLE_DIM) attrs |= A_DIM;
    if (style & CN_STYLE_REVERSE) attrs |= A_REVERSE;
    if (style & CN_STYLE_UNDERLINE) attrs |= A_UNDERLINE;
    return attrs;
}

void cn_put_cell(int y, int x, const uint32_t *scalars, int count, int width, int style) {
    if (cn_screen == NULL || count <= 0) return;
    int maxy = getmaxy(stdscr), maxx = getmaxx(stdscr);
    if (y < 0 || x < 0 || y >= maxy || x >= maxx) return;
    wchar_t text[CCHARW_MAX + 1];
    int n = 0;
    text[n++] = (wchar_t)scalars[0];
    // Only zero-width marks may follow the spacing character inside one cchar_t.
    for (int i = 1; i < count && n < CCHARW_MAX; i++) {
        if (wcwidth((wchar_t)scalars[i]) != 0) break;
        text[n++] = (wchar_t)scalars[i];
    }
    text[n] = L'\0';
    int libc_width = wcwidth(text[0]);
    if (libc_width < 0 || (width == 2 && x + 1 >= maxx)) {
        text[0] = L'?';
        text[1] = L'\0';
        libc_width = 1;
    }
    short pair = cn_colors ? (short)(style & CN_STYLE_COLOR_MASK) : 0;
    cchar_t cell;
    if (setcchar(&cell, text, cn_attrs(style), pair, NULL) != OK) return;
    mvwadd_wch(stdscr, y, x, &cell);
    // When libc measures the character narrower than we did, blank the column we reserved.
    if (width == 2 && libc_width == 1 && x + 1 < maxx) {
        cchar_t blank;
        wchar_t space[2] = {L' ', L'\0'};
        setcchar(&blank, space, cn_attrs(style), pair, NULL);
        mvwadd_wch(stdscr, y, x + 1, &blank);
    }
}

int cn_color_count(void) { return cn_colors ? COLORS : 0; }

void cn_put_pixel(int y, int x, int upper, int lower) {
    if (cn_screen == NULL || !cn_colors) return;
    if (y < 0 || x < 0 || y >= getmaxy(stdscr) || x >= getmaxx(stdscr)) return;
    // Least recently used pairs are reused once the table is full, so a preview never runs out of pairs; the
    // six pairs cn_start made stay below, as alloc_pair takes free numbers only.
    int pair = alloc_pair(upper, lower);
    if (pair < 0) return;
    wchar_t text[2] = {0x2580, L'\0'};
    cchar_t cell;
    // An int pair travels through `opts` (ncurses' extended pairs); the short argument only holds the low ones.
    if (setcchar(&cell, text, A_NORMAL, (short)(pair < 32767 ? pair : 0), &pair) != OK) return;
    mvwadd_wch(stdscr, y, x, &cell);
}

void cn_refresh(void) {
    if (cn_screen != NULL) wrefresh(stdscr);
}

void cn_write_raw(const char *bytes, long count) {
    if (cn_screen == NULL || bytes == NULL || count <= 0) return;
    // curses flushed its own buffer at the last refresh; stdio's goes out first to keep the order.
    fflush(stdout);
    fwrite(bytes, 1, (size_t)count, stdout);
    fflush(stdout);
}

void cn_invalidate(void) {
    if (cn_screen != NULL) clearok(stdscr, TRUE);
}
