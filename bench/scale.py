#!/usr/bin/env python3
# scale.py - `make bench-scale`: how ompcollect's record, reporter and outputs grow with a run's regions and threads (10^4..10^7 regions, 2..256 threads); prints one table of numbers, never fails on one.
# SPDX-License-Identifier: BSD-3-Clause
"""Each row is one run of t/ompcollect-scale under ompcollect, kept with
--save, then reported again offline with every output asked for, so the
reporter's time and peak memory are its own (os.wait4's rusage).  Record
bytes are the JSON report's "record" member: the sparse reservation and
what the run filled."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def measured(argv, env):
    """Runs argv; returns (exit status, wall seconds, CPU seconds, peak RSS in MiB)."""
    began = time.monotonic()
    child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    child.stderr.read()
    wall = time.monotonic() - began
    return child.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def size(path):
    """Bytes of a file, or of every file under a directory."""
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
    return os.path.getsize(path) if os.path.exists(path) else 0


def one_row(args, mode, count, threads, work):
    """Records one run and reports it; returns the table's cells."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    saved = os.path.join(work, "run.ses")
    status, run_wall, _, _ = measured([args.ompcollect, "--runtime", args.libomp, "--trace-json",
                                       os.path.join(work, "live.trace.json"), "--save", saved, "-o",
                                       os.path.join(work, "live.txt"), args.program, mode, str(count)], env)
    if status != 0:
        return None
    outputs = {"json": os.path.join(work, "r.json"), "trace.json": os.path.join(work, "t.json"),
               "svg": os.path.join(work, "t.svg"), "otf2": os.path.join(work, "otf2")}
    shutil.rmtree(outputs["otf2"], ignore_errors=True)
    argv = [args.ompcollect, "report", "-f", "json", "-o", outputs["json"], "--trace-json", outputs["trace.json"],
            "--timeline", outputs["svg"], saved]
    if args.otf2:
        argv[2:2] = ["--trace", outputs["otf2"]]
    status, wall, cpu, rss = measured(argv, env)
    if status != 0:
        return None
    record = json.load(open(outputs["json"], encoding="utf-8")).get("record", {})
    mib = 1024.0 * 1024.0
    return [mode, str(count), str(threads), "%.2f" % run_wall, "%.0f" % (record.get("reserved_bytes", 0) / mib),
            "%.1f" % (record.get("data_bytes", 0) / mib), "%.2f" % wall, "%.2f" % cpu, "%.0f" % rss,
            "%.2f" % (size(outputs["json"]) / mib), "%.2f" % (size(outputs["trace.json"]) / mib),
            "%.2f" % (size(outputs["otf2"]) / mib), "%.2f" % (size(outputs["svg"]) / mib)]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ompcollect", required=True)
    parser.add_argument("--program", required=True, help="t/ompcollect-scale")
    parser.add_argument("--libomp", required=True)
    parser.add_argument("--otf2", action="store_true", help="also write OTF2 (ompcollect built with libotf2)")
    parser.add_argument("--max-regions", type=int, default=10 ** 7)
    args = parser.parse_args()
    rows = []
    work = tempfile.mkdtemp(prefix="ompcollect-scale-")
    try:
        regions = 10 ** 4
        while regions <= args.max_regions:
            rows.append(one_row(args, "regions", regions, 2, work) or ["regions", str(regions), "2", "failed"])
            regions *= 10
        for threads in (2, 16, 64, 256):
            rows.append(one_row(args, "wide", 200, threads, work) or ["wide", "200", str(threads), "failed"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    head = ["program", "count", "threads", "run s", "record MiB", "data MiB", "report s", "report CPU s",
            "report RSS MiB", "JSON MiB", "Chrome MiB", "OTF2 MiB", "SVG MiB"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
