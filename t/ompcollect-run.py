#!/usr/bin/env python3
# ompcollect-run.py - runs a command as a job of its own, waits until the program announces itself in a marker file, then interrupts it as a terminal, a batch scheduler or kill would; for the TAP tests.
# SPDX-License-Identifier: BSD-3-Clause
"""Usage: ompcollect-run.py MARKER SIGNAL TARGET [--copy FILE COPY] -- COMMAND...

Starts COMMAND in a new session with default signal dispositions (as an
interactive shell starts a foreground job), waits up to 60 s for MARKER to
hold the program's pid, and sends SIGNAL (a number) to TARGET:
  group     the whole process group, as Ctrl-C on a terminal does
  launcher  COMMAND's own process (ompcollect), as a batch scheduler does
  program   the pid in MARKER
With --copy, FILE is copied to COPY at that moment (what it held mid-run).
Prints COMMAND's exit status as a shell would (128+N for signal N), or
"timeout" when the marker never appeared.
"""
import os
import shutil
import signal
import subprocess
import sys
import time


def default_signals():
    """The job starts with the dispositions a terminal's foreground job gets."""
    for number in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def main():
    args = sys.argv[1:]
    marker, number, target = args[0], int(args[1]), args[2]
    args = args[3:]
    copy = None
    if args[:1] == ["--copy"]:
        copy = (args[1], args[2])
        args = args[3:]
    if args[:1] == ["--"]:
        args = args[1:]
    job = subprocess.Popen(args, start_new_session=True, preexec_fn=default_signals)
    pid = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and job.poll() is None:
        try:
            with open(marker) as handle:
                text = handle.read().strip()
            if text:
                pid = int(text)
                break
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    if pid is None:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
            job.wait()
            print("timeout")
        else:
            print(job.returncode if job.returncode >= 0 else 128 - job.returncode)
        return
    if copy is not None and os.path.exists(copy[0]):
        shutil.copyfile(copy[0], copy[1])
    if target == "group":
        os.killpg(job.pid, number)
    elif target == "launcher":
        os.kill(job.pid, number)
    else:
        os.kill(pid, number)
    status = job.wait()
    print(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
