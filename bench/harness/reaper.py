"""`python3 reaper.py EXIT_FILE USAGE_FILE -- ARGV...`: runs ARGV and accounts for every process it leaves behind.

An interactive uploader-tui is two processes: the screen, and the run process it starts in a session of its own,
which GNU time never sees. As a child subreaper this script inherits the run process when the screen exits, so
`wait4` gives each process's own CPU time and peak RSS. EXIT_FILE gets ARGV's exit code as soon as ARGV exits (what
a person waits for); USAGE_FILE gets the JSON totals once the last descendant has exited.
"""
import ctypes
import json
import os
import sys

PR_SET_CHILD_SUBREAPER = 36


def main() -> None:
    exit_file, usage_file, separator, *argv = sys.argv[1:]
    if separator != "--" or not argv:
        sys.exit("usage: reaper.py EXIT_FILE USAGE_FILE -- ARGV...")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit(f"reaper.py: prctl: {os.strerror(ctypes.get_errno())}")
    first = os.fork()
    if first == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    processes, user, system, rss_kib = 0, 0.0, 0.0, 0
    while True:
        try:
            pid, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        processes += 1
        user += usage.ru_utime
        system += usage.ru_stime
        # Each process's own peak: the screen and the run process are alive together.
        rss_kib += usage.ru_maxrss
        if pid == first:
            with open(exit_file + ".tmp", "w") as out:
                out.write(f"{os.waitstatus_to_exitcode(status)}\n")
            os.replace(exit_file + ".tmp", exit_file)
    with open(usage_file + ".tmp", "w") as out:
        json.dump({"processes": processes, "user": user, "system": system, "rss_kib": rss_kib}, out)
    os.replace(usage_file + ".tmp", usage_file)


if __name__ == "__main__":
    main()
