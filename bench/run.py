#!/usr/bin/env python3
# run.py - `make bench`: what the shim and ompcollect cost next to a minimal OMPT tool, as one table.
# SPDX-License-Identifier: BSD-3-Clause
"""Builds the bench programs, runs every configuration and prints one table.

Configurations: no tool; the reference OMPT tool idle, with every callback
the shim sets, and delivering the legacy events as cheaply as the
collector API's guarantees allow (bench/reftool.c: the floor of any shim);
the shim with a START-only client and with all 22 events registered
(bench/client.c); ompcollect by default (its
interval is the kernel's tick plus 97 us, off the tick: see
doc/sampling-bias.md), with --interval=tick (sampled on the tick, the
cheapest), with --interval=1ms, with --no-sample, with --no-tasks, with
--tasks=full and --task-graph (per task only), and tracing (--trace-json
with a buffer no run of the bench fills: every event, each task's three
entries, logged).  Figures:

* instructions per region from valgrind's callgrind (1 thread, the fixed mix
  of bench/syncbench.c, (2R - R regions) / R so start-up and exit cancel
  except for what grows with the region count), when valgrind is installed,
  and per task (syncbench tasks: deferred tasks of one short delay; untied:
  the same untied; fib: tasks made recursively with taskwaits);
* wall time of fib(N) (a task per call, no cut-off) without a tool and
  under ompcollect, clang and GCC code on libomp: the ratio of medians;
* instructions of one STATE + CURRENT_PRID sample against the two raw OMPT
  inquiries it stands for, in each state a sample finds a thread in: at
  work in a region, serial, and, asked from a signal handler as a sampler
  asks, waiting in a barrier, waiting for a lock and idle between regions
  (callgrind's inclusive count of the tool's bench_inquire, (2R - R) / R);
* wall time per construct (EPCC-syncbench style) and of a compute-bound
  region-rate loop, from interleaved rounds: median and minimum;
  --rate-only runs the region-rate loop alone;
* local timer interrupts per second of each run (Linux /proc/interrupts,
  every CPU, so other processes' too): what sampling timers add to the
  tick, the dear part of a sample on a virtual machine;
* how fast ompcollect writes JSON: a run of the fixed mix with every event
  is saved once, then `ompcollect report` writes its Chrome trace
  (--trace-json) and its JSON report, best of 3, less the time to load the
  run (a report to /dev/null).
* what a sampled call stack costs: t/ompcollect-dwarf.c (fixed task-tree
  work, clang -O2 without frame pointers) sampled every 250 us alone, with
  --stacks and with --stacks-unwind=dwarf: the program's CPU per sample
  beyond sampling alone, and the record bytes of stack copies per sample.

Every figure of a tool also comes as a ratio to the reference tool measured
in the same run.  Numbers never make this script fail; a configuration that
cannot run is reported as such.
"""

import argparse
import datetime
import json
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CONFIGS = [
    # key, column title, kind
    ("none", "no tool", "plain"),
    ("ref-idle", "ref idle", "reftool"),
    ("ref-all", "ref all", "reftool"),
    ("ref-deliver", "ref deliver", "reftool"),
    ("shim-start", "shim START", "shim"),
    ("shim-all", "shim all", "shim"),
    ("oc-default", "ompcollect", "ompcollect"),
    ("oc-tick", "ompc -i tick", "ompcollect"),
    ("oc-1ms", "ompc -i 1ms", "ompcollect"),
    ("oc-nosample", "ompc --no-sample", "ompcollect"),
    ("oc-notasks", "ompc --no-tasks", "ompcollect"),
    ("oc-tasksfull", "ompc --tasks=full", "ompcollect"),
    ("oc-taskgraph", "ompc --task-graph", "ompcollect"),
    ("oc-trace", "ompc --trace-json", "ompcollect"),
]
# Configurations measured per task only (no region mix, no wall-time loops): the task tiers.
TASK_ONLY = ("oc-tasksfull", "oc-taskgraph")
# The per-task workloads (syncbench MODE COUNT) and their row titles.
# The fib wall-time row's configurations: no tool, the floor (what any tool that delivers the task events pays), ompcollect.
FIB_CONFIGS = ("none", "ref-deliver", "oc-default")
TASK_MODES = [("tasks", "flat tied"), ("untied", "flat untied"), ("fib", "fib (recursive, tied)")]
CONSTRUCTS = ["parallel", "for", "barrier", "single", "critical", "lock", "ordered", "atomic",
              "reduction", "tasks"]


def note(message):
    print(message, file=sys.stderr, flush=True)


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--srcdir", required=True)
    parser.add_argument("--builddir", required=True)
    parser.add_argument("--shim", required=True, help="libompcollector.so to measure")
    parser.add_argument("--libomp", default="", help="the LLVM libomp.so.5 to run on")
    parser.add_argument("--ompcollect", default="", help="the ompcollect launcher")
    parser.add_argument("--cc", default="cc", help="compiler of the tools (as the shim's)")
    parser.add_argument("--cflags", default="-O2", help="flags of the tools (as the shim's)")
    parser.add_argument("--workload-cc", default="",
                        help="compiler of the OpenMP workload (default: clang if found, else --cc)")
    parser.add_argument("--sanitizer-cflags", default="",
                        help="the build's sanitizer flags: a sanitized build cannot be measured")
    parser.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "7")),
                        help="interleaved wall-time rounds (default 7, env BENCH_ROUNDS)")
    parser.add_argument("--threads", type=int, default=2, help="OpenMP threads for wall time")
    parser.add_argument("--scale", type=int, default=1, help="multiplies the construct loops")
    parser.add_argument("--rate-seconds", type=float, default=1.0,
                        help="length of the region-rate loop with no tool")
    parser.add_argument("--regions", type=int, default=1000,
                        help="R of the instruction count: runs of R and 2R regions")
    parser.add_argument("--configs", default=",".join(c[0] for c in CONFIGS),
                        help="comma list of configurations to run")
    parser.add_argument("--inquiries", type=int, default=1000,
                        help="STATE+CURRENT_PRID samples per callgrind run (and twice as many)")
    parser.add_argument("--no-callgrind", action="store_true", help="skip instruction counts")
    parser.add_argument("--no-wall", action="store_true", help="skip wall time")
    # libomp's start-up now and then reads /proc, some 200,000 Ir: over 1,000 tasks a pair of runs that
    # disagree on it moved a task row by 200, over 10,000 by 20; --task-graph's 8 MiB log (262,144
    # entries) holds 20,000 fib tasks, whose waits are logged too, and not 200,000.
    parser.add_argument("--tasks", type=int, default=10000,
                        help="R of the task rows' instruction count: runs of R and 2R tasks")
    parser.add_argument("--trace-regions", type=int, default=4000,
                        help="regions of the run whose JSON is written (0: skip the JSON rates)")
    parser.add_argument("--stack-rounds", type=int, default=400,
                        help="task trees of the stack-cost program (t/ompcollect-dwarf.c); 0 skips it")
    parser.add_argument("--rate-only", action="store_true",
                        help="wall time of the region-rate loop alone, no construct loops")
    parser.add_argument("--fib-n", type=int, default=30,
                        help="fib(N) of the wall-time task row, a task per call, no cut-off (0 skips it)")
    parser.add_argument("--fib-rounds", type=int, default=5,
                        help="interleaved rounds of the fib wall-time row (median of each)")
    parser.add_argument("--output", default="", help="also write the table to this file")
    return parser.parse_args()


def run(command, env, timeout=600):
    """Runs a command; returns (exit status, stdout, stderr)."""
    try:
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", "timed out after %d s" % timeout
    except OSError as error:
        return 127, "", str(error)
    return done.returncode, done.stdout, done.stderr


def build(args, bindir):
    """Compiles the workload and the two tools into bindir; returns their paths or exits."""
    os.makedirs(bindir, exist_ok=True)
    workload_cc = args.workload_cc or (shutil.which("clang") and "clang") or args.cc
    bench = os.path.join(args.srcdir, "bench")
    include = ["-I" + args.builddir, "-I" + args.srcdir, "-I" + os.path.join(args.srcdir, "include")]
    tool_flags = args.cflags.split() + ["-fPIC", "-shared", "-DHAVE_CONFIG_H"] + include
    targets = {
        "syncbench": [workload_cc, "-std=gnu11", "-O2", "-fopenmp", "-o",
                      os.path.join(bindir, "syncbench"), os.path.join(bench, "syncbench.c"), "-ldl"],
        "reftool": [args.cc] + tool_flags + ["-o", os.path.join(bindir, "reftool.so"),
                                             os.path.join(bench, "reftool.c"),
                                             os.path.join(args.srcdir, "lib", "mapping.c")],
        "reftool-deliver": [args.cc] + tool_flags + ["-DREF_DELIVER", "-o",
                                                     os.path.join(bindir, "reftool-deliver.so"),
                                                     os.path.join(bench, "reftool.c"),
                                                     os.path.join(args.srcdir, "lib", "mapping.c")],
        "client": [args.cc] + tool_flags + ["-o", os.path.join(bindir, "client.so"),
                                            os.path.join(bench, "client.c"), "-ldl"],
    }
    # The fib wall row runs GCC code too, on libomp as well (LD_PRELOAD): what a GCC user pays.
    if shutil.which("gcc"):
        targets["syncbench-gcc"] = ["gcc", "-std=gnu11", "-O2", "-fopenmp", "-o",
                                    os.path.join(bindir, "syncbench-gcc"), os.path.join(bench, "syncbench.c"), "-ldl"]
    for name, command in targets.items():
        status, out, err = run(command, dict(os.environ))
        if status != 0:
            note("bench: building %s failed:\n  %s\n%s%s" % (name, " ".join(command), out, err))
            sys.exit(1)
    return (workload_cc, os.path.join(bindir, "syncbench"), os.path.join(bindir, "reftool.so"),
            os.path.join(bindir, "client.so"))


def clean_environment(threads):
    env = dict(os.environ)
    for name in ["LD_PRELOAD", "OMP_TOOL", "OMP_TOOL_LIBRARIES", "OMPCOLLECTOR_DEBUG",
                 "BENCH_REFTOOL", "BENCH_CLIENT_EVENTS"]:
        env.pop(name, None)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def command_for(config, args, paths, threads, workload_args, wrapper=()):
    """(environment, argv) that run the workload under configuration `config`."""
    _, syncbench, reftool, client = paths
    env = clean_environment(threads)
    argv = list(wrapper)
    if config == "none":
        env["LD_PRELOAD"] = args.libomp
    elif config in ("ref-idle", "ref-all", "ref-deliver"):
        tool = reftool[:-len(".so")] + "-deliver.so" if config == "ref-deliver" else reftool
        env["LD_PRELOAD"] = args.libomp + " " + tool
        env["BENCH_REFTOOL"] = config[len("ref-"):]
    elif config in ("shim-start", "shim-all"):
        env["LD_PRELOAD"] = " ".join([args.libomp, args.shim, client])
        env["BENCH_CLIENT_EVENTS"] = "none" if config == "shim-start" else "all"
    else:
        argv += [args.ompcollect, "--runtime=" + args.libomp, "-o", os.devnull]
        if config == "oc-nosample":
            argv.append("--no-sample")
        if config == "oc-notasks":
            argv.append("--no-tasks")
        if config == "oc-tasksfull":
            argv.append("--tasks=full")
        if config == "oc-taskgraph":
            # Every task logged; the graph's default 512 MiB log cannot be mapped under valgrind.  Sampled,
            # as users run it: --no-sample would follow every run for the table too (--tasks=full's tier).
            argv += ["--task-graph=" + os.devnull, "--trace-buffer=8M"]
        if config == "oc-trace":
            # Every event logged (the task events too), none dropped: what tracing adds per construct and task.
            # The default 8 MiB buffer holds every run of the bench; a 64 MiB one cannot be
            # mapped under valgrind, and the program then runs unobserved.
            argv += ["--trace-json=" + os.devnull]
        if config == "oc-1ms":
            argv.append("--interval=1ms")
        if config == "oc-tick":
            # On the tick: no interrupt of its own, but it can alias with the scheduler (doc/sampling-bias.md).
            argv.append("--interval=tick")
    return env, argv + [syncbench] + list(workload_args)


def callgrind_total(config, args, paths, workload_args, workdir):
    """Instructions the workload itself executed under `config`, or None (with a note)."""
    out_pattern = os.path.join(workdir, "callgrind.%p")
    wrapper = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out_pattern]
    if config.startswith("oc-"):
        wrapper.append("--trace-children=yes")
    for name in os.listdir(workdir):
        os.unlink(os.path.join(workdir, name))
    env, argv = command_for(config, args, paths, 1, workload_args, wrapper)
    status, out, err = run(argv, env)
    if status != 0:
        note("bench: %s under callgrind exited %d:\n%s" % (config, status, err[-2000:]))
        return None, out
    if config.startswith("oc-") and "did not fit their" in err:
        # A log that dropped events did less work than one that kept them: its count would flatter the tool.
        note("bench: %s under callgrind filled its event log:\n%s" % (config, err[-2000:]))
        return None, out
    if config.startswith("oc-") and "no report" in err:
        # A run ompcollect did not observe would pass for a cheap one.
        note("bench: %s under callgrind observed nothing:\n%s" % (config, err[-2000:]))
        return None, out
    syncbench = paths[1]
    for name in os.listdir(workdir):
        command = total = None
        with open(os.path.join(workdir, name)) as profile:
            for line in profile:
                if line.startswith("cmd:"):
                    command = line[4:].strip()
                elif line.startswith("totals:"):
                    total = int(line.split()[1])
        if command is not None and command.split()[0].endswith(os.path.basename(syncbench)) \
                and total is not None:
            return total, out
    note("bench: %s: no callgrind profile of the workload was written" % config)
    return None, out


# The states STATE + CURRENT_PRID are measured in (syncbench inquire COUNT WHERE).
INQUIRY_STATES = ["work", "serial", "barrier", "lock", "idle"]


def inclusive_cost(profile, function):
    """Inclusive instructions of `function` in a callgrind profile, or None."""
    status, out, _ = run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", profile], dict(os.environ))
    if status != 0:
        return None
    # "  986,000 (28.51%)  /path/client.c:bench_inquire [/path/client.so]"
    pattern = re.compile(r"^\s*([0-9,]+)\s+\([^)]*\)\s+\S*:%s(\s|$)" % re.escape(function))
    for line in out.splitlines():
        match = pattern.match(line)
        if match:
            return int(match.group(1).replace(",", ""))
    return None


def inquiry_cost(config, args, paths, where, workdir):
    """Instructions of one bench_inquire() by a thread `where` (INQUIRY_STATES), (2R - R) / R; None if unmeasured."""
    costs = []
    for count in (args.inquiries, 2 * args.inquiries):
        for name in os.listdir(workdir):
            os.unlink(os.path.join(workdir, name))
        wrapper = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + os.path.join(workdir, "callgrind.out")]
        env, argv = command_for(config, args, paths, 2, ["inquire", str(count), where], wrapper)
        status, out, err = run(argv, env)
        if status != 0 or "none" in out:
            if status != 0:
                note("bench: %s inquiring %s under callgrind exited %d:\n%s" % (config, where, status, err[-2000:]))
            return None
        cost = inclusive_cost(os.path.join(workdir, "callgrind.out"), "bench_inquire")
        if cost is None:
            return None
        costs.append(cost)
    return (costs[1] - costs[0]) / args.inquiries


def per_unit(config, args, paths, mode, workdir, units=None):
    """Instructions per unit of `mode` (mix regions, tasks or inquiries): (2R - R) / R, R `units` or --regions.

    Counts are deterministic but for the odd run whose start-up takes a
    different path, so pairs of runs are repeated until two agree within
    0.2% (at most three pairs) and the median is taken.  None when a run
    fails or, for inquiries, when the tool has none.
    """
    regions = units or args.regions
    figures = []
    for _ in range(3):
        low, out = callgrind_total(config, args, paths, [mode, str(regions)], workdir)
        high, _ = callgrind_total(config, args, paths, [mode, str(2 * regions)], workdir)
        if low is None or high is None or (mode == "inquire" and "none" in out):
            return None
        figures.append((high - low) / regions)
        if len(figures) >= 2 and any(abs(a - b) <= 0.002 * max(abs(a), 1)
                                     for i, a in enumerate(figures) for b in figures[i + 1:]):
            break
    return statistics.median(figures)


def instruction_counts(args, paths, configs):
    """Per configuration: instructions per region and per task, and per inquiry where the tool has one."""
    per_region, per_inquiry = {}, {}
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as workdir:
        for config in configs:
            if config in ("oc-1ms", "oc-tick"):
                continue
            note("bench: callgrind, %s" % config)
            if config not in TASK_ONLY:
                figure = per_unit(config, args, paths, "mix", workdir)
                if figure is not None:
                    per_region[config] = figure
            for mode, _ in TASK_MODES:
                figure = per_unit(config, args, paths, mode, workdir, args.tasks)
                if figure is not None:
                    per_inquiry.setdefault("task-" + mode, {})[config] = figure
            if config in ("ref-all", "shim-start", "shim-all"):
                for where in INQUIRY_STATES:
                    figure = inquiry_cost(config, args, paths, where, workdir)
                    if figure is not None:
                        per_inquiry.setdefault(where, {})[config] = figure
    return per_region, per_inquiry


def calibrate(args, paths):
    env, argv = command_for("none", args, paths, 1, ["calibrate"])
    status, out, err = run(argv, env)
    for line in out.splitlines():
        if line.startswith("calibrate "):
            return int(line.split()[1])
    note("bench: calibration failed (%d): %s" % (status, err))
    sys.exit(1)


def timer_interrupts():
    """Local timer interrupts so far, all CPUs together (None when /proc/interrupts says nothing)."""
    try:
        with open("/proc/interrupts") as table:
            for line in table:
                fields = line.split()
                if fields and fields[0] == "LOC:":
                    return sum(int(f) for f in fields[1:] if f.isdigit())
    except OSError:
        pass
    return None


def wall_times(args, paths, configs):
    """Per configuration: {construct: [us per construct, one per round]}, plus 'rate': [s]."""
    units = calibrate(args, paths)
    regions = max(1, int(args.rate_seconds * 4000))
    configs = [c for c in configs if c not in TASK_ONLY]
    times = {config: {} for config in configs}
    failures = {}
    order = list(configs)
    shuffler = random.Random(17)
    for round_number in range(args.rounds):
        shuffler.shuffle(order)
        note("bench: wall-time round %d of %d" % (round_number + 1, args.rounds))
        for config in order:
            mode = ["rate", str(units), str(regions)] if args.rate_only \
                else ["wall", str(args.scale), str(units), str(regions)]
            env, argv = command_for(config, args, paths, args.threads, mode)
            interrupts, began = timer_interrupts(), time.time()
            status, out, err = run(argv, env)
            if interrupts is not None and status == 0:
                times[config].setdefault("irq", []).append(
                    (timer_interrupts() - interrupts) / max(time.time() - began, 1e-3))
            if status != 0:
                failures[config] = "exit %d: %s" % (status, err.strip()[-300:])
                continue
            for line in out.splitlines():
                fields = line.split()
                if len(fields) == 3 and fields[0] == "construct":
                    times[config].setdefault(fields[1], []).append(float(fields[2]))
                elif len(fields) == 3 and fields[0] == "rate":
                    times[config].setdefault("rate", []).append(float(fields[2]))
    return times, failures, regions


def timed(argv, env, tries=3):
    """Best wall and CPU seconds (user + system) of `tries` runs of argv, or None when one fails."""
    best_wall = best_cpu = None
    for _ in range(tries):
        before, began = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
        status, _, err = run(argv, env)
        wall, after = time.time() - began, resource.getrusage(resource.RUSAGE_CHILDREN)
        if status != 0:
            note("bench: %s failed: %s" % (" ".join(argv), err.strip()[-300:]))
            return None
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_wall = wall if best_wall is None else min(best_wall, wall)
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
    return best_wall, best_cpu


def json_rates(args, paths, workdir):
    """Notes on how fast `ompcollect report` writes the Chrome trace and the JSON report of a saved run."""
    saved = os.path.join(workdir, "mix.ses")
    env, argv = command_for("oc-1ms", args, paths, args.threads, ["mix", str(args.trace_regions)])
    # The run is saved with every event, so the trace holds the constructs' waits as well as the states.
    argv[argv.index("-o"):argv.index("-o")] = ["-e", "all", "--trace-buffer=64M", "--trace-json=" + os.devnull,
                                               "--save=" + saved]
    status, _, err = run(argv, env)
    if status != 0:
        return ["JSON rates skipped: the run to save failed: %s" % err.strip()[-300:]]
    base = timed([args.ompcollect, "report", "-o", os.devnull, saved], env)
    outputs = [("Chrome trace (--trace-json)", "trace.json",
                lambda path: ["--trace-json=" + path, "-o", os.devnull]),
               ("JSON report (-f json)", "report.json", lambda path: ["-f", "json", "-o", path])]
    notes = []
    for title, name, options in outputs:
        path = os.path.join(workdir, name)
        spent = timed([args.ompcollect, "report"] + options(path) + [saved], env)
        if base is None or spent is None:
            notes.append("%s: failed" % title)
            continue
        size = os.path.getsize(path)
        # The trace is a line of otherData, one of "traceEvents":[, one per event, and the closing one.
        with open(path, "rb") as written:
            events = sum(1 for _ in written) - 3 if name == "trace.json" else 0
        net_wall, net_cpu = max(spent[0] - base[0], 1e-6), max(spent[1] - base[1], 1e-6)
        notes.append("%s of %d regions: %.1f MB%s, written in %.2f s wall (%.2f s CPU) beyond the "
                     "%.2f s (%.2f s CPU) of loading the run: %.1f MB/s%s of CPU, best of 3."
                     % (title, args.trace_regions, size / 1e6,
                        ", %d events (%.0f bytes each)" % (events, size / events) if events else "",
                        net_wall, net_cpu, base[0], base[1], size / 1e6 / net_cpu,
                        ", %.0fk events/s" % (events / net_cpu / 1e3) if events else ""))
    return notes


def stack_costs(args, paths, workdir):
    """Notes on what a sampled stack costs (--stacks, --stacks-unwind=dwarf): CPU per sample and record bytes per sample."""
    program = os.path.join(workdir, "dwarf")
    source = os.path.join(args.srcdir, "t", "ompcollect-dwarf.c")
    # Optimized without frame pointers, as distributions build: the case --stacks-unwind=dwarf is for.
    status, _, err = run([paths[0], "-O2", "-g", "-fopenmp", "-o", program, source, "-lm"], dict(os.environ))
    if status != 0:
        return ["stack sample costs skipped: building %s failed: %s" % (source, err.strip()[-300:])]
    configs = [("sampling alone", []), ("--stacks (frame pointers)", ["--stacks"]),
               ("--stacks-unwind=dwarf (16K)", ["--stacks-unwind=dwarf"])]
    env = clean_environment(2)
    results = []
    for title, options in configs:
        best = None
        for _ in range(3):
            report = os.path.join(workdir, "stacks.json")
            argv = [args.ompcollect, "--runtime=" + args.libomp, "-i", "250us", "-f", "json", "-o", report] \
                + options + [program, "0", str(args.stack_rounds)]
            began = time.time()
            status, out, err = run(argv, env)
            wall = time.time() - began
            cpu = [float(line.split()[1]) for line in out.splitlines() if line.startswith("cpu ")]
            if status != 0 or not cpu:
                return ["stack sample costs skipped: %s failed: %s" % (" ".join(argv), err.strip()[-300:])]
            with open(report) as loaded:
                r = json.load(loaded)
            stacks = r.get("stacks") or {}
            unwinding = stacks.get("unwinding", {})
            # Signals handled, not samples: a sample off the CPU stands for several expirations but costs one handler.
            signals = sum(thread.get("signals", 0) for thread in r.get("threads", []))
            row = (cpu[0], signals, unwinding.get("copy_bytes", 0), wall)
            best = row if best is None or row[0] < best[0] else best
        results.append((title, best))
    base_cpu = results[0][1][0]
    notes = ["Stack samples: t/ompcollect-dwarf.c (%d task trees, fib(16), clang -O2 without frame pointers), "
             "2 threads, -i 250us, best CPU of 3 (the program's own, handlers included):" % args.stack_rounds]
    for title, (cpu, samples, copy_bytes, wall) in results:
        extra = (cpu - base_cpu) / max(samples, 1) * 1e6
        notes.append("  %s: %.3f s CPU, %d signals handled%s%s" % (
            title, cpu, samples,
            "" if title == results[0][0] else ", %+.1f us CPU a signal beyond sampling alone" % extra,
            ", %.0f record bytes a signal (%.1f MB of stack copies)" % (copy_bytes / max(samples, 1), copy_bytes / 1e6)
            if copy_bytes else ""))
    return notes


def ratio(value, reference):
    if value is None or reference is None or reference <= 0:
        return ""
    return " %.2fx" % (value / reference)


def count(value):
    return "{:,.0f}".format(value)


def task_rows(configs, per_task, title):
    """Instructions per task of one workload, and what each tool adds to it next to ref deliver's (the floor)."""
    base, floor = per_task.get("none"), per_task.get("ref-deliver")
    if base is None:
        return []
    floor_added = None if floor is None else floor - base
    row_total, row_added = ["Ir/task, %s" % title], ["Ir added per task, %s (x ref deliver added)" % title]
    for config in configs:
        value = per_task.get(config)
        mark = "~" if config == "oc-default" else ""
        row_total.append("n/a" if value is None else mark + count(value))
        row_added.append("-" if value is None or config == "none"
                         else mark + "+" + count(value - base) + ratio(value - base, floor_added))
    return [row_total, row_added]


def fib_rows(configs, fib):
    """The fib wall-time rows: median seconds without a tool and under ompcollect, and their ratio."""
    rows = []
    for compiler, figures in sorted(fib.items()):
        base = figures.get("none")
        row = ["fib(%d) wall s med, %s (x no tool)" % (figures["n"], compiler)]
        for config in configs:
            values = figures.get(config)
            if config not in FIB_CONFIGS or not values:
                row.append("-")
                continue
            median = statistics.median(values)
            row.append("%.3f" % median + ("" if config == "none" or not base
                                          else ratio(median, statistics.median(base))))
        rows.append(row)
    return rows


def fib_wall(args, paths, configs):
    """fib(N), a task per call and no cut-off, without a tool and under ompcollect, clang and gcc code, interleaved."""
    programs = [("clang" if "clang" in paths[0] else os.path.basename(paths[0]), paths[1])]
    gcc_build = os.path.join(os.path.dirname(paths[1]), "syncbench-gcc")
    if os.path.isfile(gcc_build):
        programs.append(("gcc", gcc_build))
    fib = {name: {"n": args.fib_n} for name, _ in programs}
    for round_number in range(args.fib_rounds):
        note("bench: fib(%d) wall round %d of %d" % (args.fib_n, round_number + 1, args.fib_rounds))
        for name, program in programs:
            for config in [c for c in FIB_CONFIGS if c in configs]:
                env, argv = command_for(config, args, paths, args.threads, ["fibwall", str(args.fib_n)])
                argv[argv.index(paths[1])] = program
                status, out, err = run(argv, env)
                seconds = [float(line.split()[2]) for line in out.splitlines() if line.startswith("fibwall ")]
                if status != 0 or not seconds:
                    note("bench: fib %s %s failed: %s" % (name, config, err.strip()[-300:]))
                    continue
                fib[name].setdefault(config, []).append(seconds[0])
    return fib


def build_table(args, paths, configs, per_region, per_inquiry, times, regions, notes):
    titles = dict((c[0], c[1]) for c in CONFIGS)
    header = ["figure"] + [titles[c] for c in configs]
    rows = []
    if per_region:
        base = per_region.get("none")
        idle = per_region.get("ref-idle")
        ref_added = per_region["ref-all"] - base if base is not None and "ref-all" in per_region \
            else None
        row_total, row_added = ["Ir/region (x ref idle)"], ["Ir added (x ref all added)"]
        for config in configs:
            value = per_region.get(config)
            mark = "~" if config == "oc-default" else ""
            if value is None:
                row_total.append("n/a")
                row_added.append("n/a")
                continue
            row_total.append(mark + count(value) + ("" if config == "none" else ratio(value, idle)))
            if config == "none" or base is None:
                row_added.append("-")
            else:
                row_added.append(mark + "+" + count(value - base) + ratio(value - base, ref_added))
        rows += [row_total, row_added]
        if "ref-deliver" in per_region and base is not None:
            # The floor of any tool that delivers the legacy events safely (bench/reftool.c).
            floor_added = per_region["ref-deliver"] - base
            row_floor = ["Ir added (x ref deliver added)"]
            for config in configs:
                value = per_region.get(config)
                row_floor.append("-" if value is None or config == "none" or config.startswith("oc-")
                                 else "+" + count(value - base) + ratio(value - base, floor_added))
            rows.append(row_floor)
    for mode, title in TASK_MODES:
        rows += task_rows(configs, per_inquiry.get("task-" + mode, {}), title)
    rows += fib_rows(configs, per_inquiry.get("fib-wall", {}))
    for where in INQUIRY_STATES:
        figures = per_inquiry.get(where, {})
        if not figures:
            continue
        reference = figures.get("ref-all")
        row = ["Ir STATE+CURRENT_PRID, %s (x raw)" % where]
        for config in configs:
            value = figures.get(config)
            row.append("-" if value is None else count(value) + ratio(value, reference))
        rows.append(row)
    if times:
        def summary(config, key):
            values = times.get(config, {}).get(key)
            if not values:
                return None
            return statistics.median(values), min(values)

        for construct in CONSTRUCTS + ["rate"]:
            if all(summary(config, construct) is None for config in configs):
                continue
            base = summary("none", construct)
            reference = summary("ref-all", construct)
            if construct == "rate":
                row = ["%d-region loop s (med/min)" % regions]
            else:
                row = [construct + " us (med/min)"]
            for config in configs:
                mine = summary(config, construct)
                if mine is None:
                    row.append("n/a")
                elif config == "none" or base is None:
                    row.append("%.3f/%.3f" % mine)
                elif construct == "rate":
                    added = (100 * (mine[0] - base[0]) / base[0], 100 * (mine[1] - base[1]) / base[1])
                    ref = None if reference is None else reference[0] - base[0]
                    row.append("%+.1f%%/%+.1f%%%s" % (added[0], added[1],
                                                       ratio(mine[0] - base[0], ref)))
                else:
                    added = (mine[0] - base[0], mine[1] - base[1])
                    ref = None if reference is None else reference[0] - base[0]
                    row.append("%+.3f/%+.3f%s" % (added[0], added[1], ratio(added[0], ref)))
            rows.append(row)
        if any(summary(config, "irq") for config in configs):
            row = ["timer irq/s (med)"]
            for config in configs:
                mine = summary(config, "irq")
                row.append("n/a" if mine is None else "%.0f" % mine[0])
            rows.append(row)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = ["| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(header)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
                                        for i, cell in enumerate(row)) + " |")
    return "\n".join(lines + [""] + notes)


def machine_description():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores, %s %s" % (model, os.cpu_count() or 0, platform.system(), platform.release())


def main():
    args = parse_arguments()
    if args.sanitizer_cflags.strip():
        note("bench: this build is sanitized (%s); configure a build without --enable-sanitizers "
             "to measure" % args.sanitizer_cflags)
        return 2
    if not args.libomp or not os.path.isfile(args.libomp):
        note("bench: no LLVM libomp found (configure with LIBOMP=/path/libomp.so.5); nothing to measure")
        return 2
    if not os.path.isfile(args.shim):
        note("bench: the shim %s is not built (run make first)" % args.shim)
        return 2
    configs = [c for c in (s.strip() for s in args.configs.split(",")) if c]
    known = [c[0] for c in CONFIGS]
    for config in configs:
        if config not in known:
            note("bench: unknown configuration '%s' (known: %s)" % (config, ", ".join(known)))
            return 2
    notes = []
    if any(c.startswith("oc-") for c in configs) and not os.access(args.ompcollect or "", os.X_OK):
        notes.append("ompcollect columns skipped: %s is not built" % (args.ompcollect or "ompcollect"))
        configs = [c for c in configs if not c.startswith("oc-")]
    configs = [c for c in known if c in configs]
    paths = build(args, os.path.join(args.builddir, "bench", "bin"))

    per_region, per_inquiry = {}, {}
    if args.no_callgrind:
        notes.append("instruction counts skipped (--no-callgrind)")
    elif shutil.which("valgrind") is None:
        notes.append("instruction counts skipped: valgrind is not installed "
                     "(apt-get install valgrind)")
    else:
        per_region, per_inquiry = instruction_counts(args, paths, configs)
    times, failures, regions = {}, {}, 0
    if not args.no_wall and args.rounds > 0:
        times, failures, regions = wall_times(args, paths, configs)
    else:
        notes.append("wall time skipped")
    if not args.no_wall and args.fib_n > 0 and "none" in configs and "oc-default" in configs:
        per_inquiry["fib-wall"] = fib_wall(args, paths, configs)

    json_notes = []
    if args.trace_regions > 0 and any(c.startswith("oc-") for c in configs):
        note("bench: JSON write rates")
        with tempfile.TemporaryDirectory(prefix="bench-json-") as workdir:
            json_notes = json_rates(args, paths, workdir)
    if args.stack_rounds > 0 and any(c.startswith("oc-") for c in configs):
        note("bench: stack sample costs")
        with tempfile.TemporaryDirectory(prefix="bench-stacks-") as workdir:
            json_notes += stack_costs(args, paths, workdir)

    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    skipped, notes = notes, [
        "%s on %s (load %.1f at the end)." % (stamp, machine_description(), load),
        "Runtime %s; tools and shim built with %s %s; workload with %s -O2 -fopenmp."
        % (os.path.realpath(args.libomp), args.cc, args.cflags, paths[0]),
    ]
    if per_region or any(key != "fib-wall" for key in per_inquiry):
        notes += [
            "Ir: callgrind instructions per region of the fixed mix (barrier, critical, lock, "
            "single, master, for, for-reduction), 1 thread, (%d - %d regions) / %d, the median "
            "of pairs repeated until two agree; ~ = timer-driven, not deterministic.  Ratios: "
            "Ir/region to ref idle's total, Ir added to ref all's added; ref deliver's added "
            "is the floor of a shim (no state, ids or pairs kept, 20 deliveries per region).  "
            "Ir/task: the same for one deferred task of one short delay (syncbench tasks, "
            "(%d - %d tasks) / %d), created and run by one thread; ref deliver hands on the "
            "events the shim delivers for it (creation 2, start 4, end 3); flat untied: the same "
            "tasks untied; fib: tasks made recursively, two per task with a taskwait each "
            "(syncbench fib).  ompcollect's default counts tasks at creation and samples their "
            "time; --tasks=full follows every run; --task-graph logs every task (8 MiB log)."
            % (2 * args.regions, args.regions, args.regions, 2 * args.tasks, args.tasks, args.tasks),
            "STATE+CURRENT_PRID: one batched sample through the API vs ompt_get_state + "
            "ompt_get_parallel_info(0) in the reference tool (ref all's column holds the raw "
            "inquiries), callgrind's inclusive count of one bench_inquire() by a thread at work in "
            "a region, serial, or from a signal handler while it waits in a barrier, waits for a "
            "lock or is idle between regions, (%d - %d calls) / %d."
            % (2 * args.inquiries, args.inquiries, args.inquiries),
        ]
    if per_inquiry.get("fib-wall"):
        notes.append("fib(%d) wall: a task per call, no cut-off, %d threads on libomp (GCC code too, "
                     "LD_PRELOAD), %d interleaved rounds, median seconds and the ratio of medians "
                     "to no tool's, for ref deliver (the floor) and ompcollect."
                     % (args.fib_n, args.threads, args.fib_rounds))
    if times:
        notes.append("Wall: %d interleaved rounds, %d threads, each figure the best of 3 trials "
                     "in its run; no tool in us (the loop in s) as median/min over rounds, others "
                     "as the added median/min and the median's ratio to ref all's added."
                     % (args.rounds, args.threads))
        if any(times[config].get("irq") for config in configs):
            # CLOCK_MONOTONIC_COARSE (6 on Linux) ticks with the kernel's scheduler tick.
            try:
                tick = "%.0f" % (1 / time.clock_getres(getattr(time, "CLOCK_MONOTONIC_COARSE", 6)))
            except (OSError, ZeroDivisionError):
                tick = "HZ"
            notes.append("timer irq/s: local timer interrupts per second of each run, every CPU "
                         "(the tick alone is %s per busy CPU), median over rounds." % tick)
    notes += json_notes
    notes += ["%s failed in some rounds: %s" % (c, why) for c, why in sorted(failures.items())]
    notes += skipped
    table = build_table(args, paths, configs, per_region, per_inquiry, times, regions, notes)
    print(table)
    if args.output:
        with open(args.output, "w") as out:
            out.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
