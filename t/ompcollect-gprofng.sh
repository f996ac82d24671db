#!/bin/sh
# ompcollect-gprofng.sh - --gprofng: GNU gprofng opens the experiment without an error or a warning, and its OpenMP metrics, its per-state functions (<OMP-implicit_barrier>...), its functions' OpenMP times, its parallel regions (OMP_preg) and its tasks (OMP_task) agree with ompcollect's JSON report of the same run; a saved run writes the same experiment again; a program without frame pointers recorded with --stacks-unwind=dwarf gets the CFI-unwound stacks.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"

echo "1..13"
n=0
result_lines="head -n 40"

# clang first: its explicit barriers read EBAR (gcc's read IBAR unless OMPCOLLECTOR_GCC_BARRIERS says).
program= cc=
for candidate in clang gcc; do
    command -v $candidate >/dev/null 2>&1 || continue
    program=$(test_program gprofng-$candidate 2>"$tmp/build.err") && cc=$candidate && break
done

run --gprofng="$tmp/not-an-experiment" "${program:-/bin/true}"
[ $status -eq 125 ] && grep -q "ends in .er" "$tmp/err" && [ ! -e "$tmp/not-an-experiment" ]
result $? "--gprofng refuses a directory gprofng would not open (not NAME.er)" "$tmp/err"
run --no-sample --gprofng="$tmp/x.er" "${program:-/bin/true}"
[ $status -eq 125 ] && grep -q "no-sample" "$tmp/err"
result $? "--gprofng refuses --no-sample: the experiment is the samples" "$tmp/err"

if [ -z "$program" ]; then
    skip "neither clang nor gcc built t/ompcollect-gprofng.c" 11
    exit 0
fi
# An explicit interval: the times compared are samples x interval.
run --runtime "$LIBOMP" -i 1ms --gprofng="$tmp/run.er" --save="$tmp/run.ses" -f json -o "$tmp/run.json" "$program" 1
[ $status -eq 0 ] && [ -s "$tmp/run.er/log.xml" ] && [ -s "$tmp/run.er/profile" ] && [ -s "$tmp/run.er/omptrace" ]
result $? "--gprofng=DIR.er writes the experiment ($cc)" "$tmp/err"

# A saved run makes the same experiment: it is a view of the record, like every other output.
"$oc" report --gprofng="$tmp/again.er" -o /dev/null "$tmp/run.ses" >"$tmp/again.err" 2>&1
same=0
for file in log.xml map.xml data.frameinfo profile omptrace; do
    cmp "$tmp/run.er/$file" "$tmp/again.er/$file" >>"$tmp/again.err" 2>&1 || same=1
done
result $same "'ompcollect report --gprofng' of the saved run writes the same files" "$tmp/again.err"

if ! command -v gprofng >/dev/null 2>&1 || ! env -u LD_PRELOAD gprofng --version >/dev/null 2>&1; then
    skip "gprofng is not installed (binutils 2.39 or later; Debian: binutils)" 9
    exit 0
fi
gp() {
    env -u LD_PRELOAD gprofng display text "$@" "$tmp/run.er"
}
gp -header >"$tmp/header.out" 2>&1
grep -q "^No errors" "$tmp/header.out" && grep -q "^No warnings" "$tmp/header.out"
result $? "gprofng reads the experiment without an error or a warning" "$tmp/header.out"

gp -metrics e.totalcpu:i.totalcpu:i.ompwork:i.ompwait:i.ompovhd -functions >"$tmp/functions.out" 2>&1
gp -metrics e.totalcpu:i.totalcpu:i.ompwork:i.ompwait:i.ompovhd -indxobj OMP_preg >"$tmp/preg.out" 2>&1
gp -metrics i.totalcpu -indxobj OMP_task >"$tmp/task.out" 2>&1

# The comparisons, one result line each: ok, or what differs.
cat >"$tmp/compare.py" <<'EOF'
import json, re, sys
report = json.load(open(sys.argv[1]))
cc = sys.argv[4]
checks = sys.argv[5]
interval = report["interval_ns"] / 1e9
WORK = ("WORK", "SERIAL", "REDUC")
WAIT = ("IBAR", "EBAR", "IDLE", "LKWT", "CTWT", "ODWT", "ATWT")
def rows(path):
    """gprofng's table rows: name -> the numbers before it."""
    table = {}
    for line in open(path):
        m = re.match(r"\s*((?:[0-9.]+\s+)+)(\S.*?)\s*$", line)
        if m:
            table[m.group(2)] = [float(x) for x in m.group(1).split()]
    return table
functions, pregs = rows(sys.argv[2]), rows(sys.argv[3])
def close(got, samples, margin):
    return abs(got - samples * interval) <= margin * interval + 0.0015
def line(ok, what):
    print("ok" if ok else "differs: " + what)
totals = report["totals"]["states"]
def user_functions():
    """The program's functions: their inclusive time, OpenMP Work and Wait, from the report's user-model stacks."""
    folded = report["stacks"]["folded"]
    bad = []
    for name in ("imbalanced_work", "critical_work", "barrier_work", "task_work", "main", "spin"):
        paths = [p for p in folded if name in p["stack"].split(";")]
        want = [sum(p["samples"] for p in paths), sum(p["samples"] for p in paths if p["state"] in WORK),
                sum(p["samples"] for p in paths if p["state"] in WAIT)]
        got = functions.get(name, [0, 0, 0, 0, 0])[1:4]
        margin = max(2, 0.01 * want[0])
        if want[0] == 0 or not all(close(g, w, margin) for g, w in zip(got, want)):
            bad.append((name, got, want))
    return bad
if checks == "functions":
    bad = user_functions()
    line(not bad, "functions (name, gprofng i.total/i.ompwork/i.ompwait s, report samples): %s" % bad)
    sys.exit(0)
# e.totalcpu, i.totalcpu (every sample: ompcollect's are wall-clock), i.ompwork, i.ompwait, i.ompovhd
want = [sum(totals.values()), sum(totals.values()), sum(totals[s] for s in WORK), sum(totals[s] for s in WAIT), totals["OVHD"]]
got = functions.get("<Total>", [])
line(len(got) == 5 and all(close(g, w, 0) for g, w in zip(got, want)), "<Total> %s, report %s samples" % (got, want))
# Each state the analyzer draws as a function of its own, exclusive time: the report's samples in that state.
pseudo = {"IBAR": "<OMP-implicit_barrier>", "EBAR": "<OMP-explicit_barrier>", "CTWT": "<OMP-critical_section_wait>",
          "LKWT": "<OMP-lock_wait>", "ODWT": "<OMP-ordered_section_wait>", "ATWT": "<OMP-atomic_wait>", "IDLE": "<OMP-idle>"}
known = ["IBAR", "CTWT"] + (["EBAR"] if cc == "clang" else [])
bad = [(s, functions.get(f, [0])[0], totals[s]) for s, f in pseudo.items() if not close(functions.get(f, [0])[0], totals[s], 0)]
line(not bad and all(totals[s] > 0 for s in known), "state functions (state, gprofng s, report samples): %s; %s" % (bad, {s: totals[s] for s in known}))
bad = user_functions()
line(not bad, "functions (name, gprofng i.total/i.ompwork/i.ompwait s, report samples): %s" % bad)
# One OMP_preg row per parallel construct, named at its pragma's line (clang; GCC's call is on the line before).
regions = {k: v for k, v in pregs.items() if k.startswith("OpenMP Parallel Region from ")}
constructs = report["constructs"]
named = []
for c in constructs:
    where = c["location"]
    text = "OpenMP Parallel Region from %s, line %d in \"ompcollect-gprofng.c\"" % (where["function"], where["line"])
    found = text in regions if cc == "clang" else any(k.startswith("OpenMP Parallel Region from %s," % where["function"]) for k in regions)
    named.append((where["function"], found))
line(len(regions) == len(constructs) == 4 and all(f for _, f in named), "constructs %s, OMP_preg rows %s" % (named, list(regions)))
# A region's time: the report's samples in its construct.  A stack holding the construct's call has its
# samples placed inside the construct's instances; those of stacks naming none (IDLE between regions, a
# stack cut short) are spread over their state's spans and may fall into any region: that, and 5% for
# where an instance's FORK and JOIN cut its workers' spans, is the margin.
bad = []
unplaced = totals["IDLE"] + report["stacks"]["incomplete"] + report["stacks"]["not_recorded"]
for c in constructs:
    where = c["location"]
    row = [v for k, v in regions.items() if k.startswith("OpenMP Parallel Region from %s," % where["function"])]
    samples = sum(c["states"].values())
    if not row or not close(row[0][0], samples, 0.05 * samples + unplaced + 5):
        bad.append((where["function"], row[0][0] if row else None, samples))
line(not bad, "regions (function, gprofng s, report samples): %s" % bad)
# One OMP_task row per task construct, named at its pragma's line (GCC's call may sit on another), with the
# report's sampled time in that construct's tasks: the samples that found one of its tasks running.  Those
# whose stack the table did not keep name no task in the experiment: they are the margin.
tasks = {k: v for k, v in rows(sys.argv[6]).items() if k.startswith("OpenMP Task from ") and "Implicit" not in k}
constructs = report["tasks"]["constructs"]
bad = []
for c in constructs:
    line_text = ", line %d in \"ompcollect-gprofng.c\"" % c["location"]["line"]
    row = [v for k, v in tasks.items() if k.endswith(line_text) or cc != "clang"]
    samples = c["sampled_ns"] / report["interval_ns"]
    if not row or samples == 0 or not close(row[0][0], samples, 2 + report["stacks"]["not_recorded"]):
        bad.append((c["location"]["line"], row[0][0] if row else None, samples))
line(not bad and len(tasks) == len(constructs) == 1, "OMP_task rows %s; report's constructs (line, gprofng s, samples) %s" % (list(tasks), bad))
EOF
python3 "$tmp/compare.py" "$tmp/run.json" "$tmp/functions.out" "$tmp/preg.out" "$cc" all "$tmp/task.out" >"$tmp/compare.out" 2>&1
i=0
while IFS= read -r verdict; do
    i=$((i + 1))
    case $i in
    1) what="<Total>'s Total CPU Time (wall-clock samples), OpenMP Work, Wait and Overhead are the report's samples x interval" ;;
    2) what="each state's function (<OMP-implicit_barrier>, <OMP-critical_section_wait>, <OMP-explicit_barrier>...) has exactly the report's samples in that state" ;;
    3) what="the program's functions have the report's samples in their user-model stacks, by Work and Wait" ;;
    4) what="OMP_preg lists each parallel construct, named at its pragma" ;;
    5) what="each parallel region's time agrees with the report's construct (within the sample placement's margin)" ;;
    6) what="OMP_task lists the task construct, named at its pragma, with the report's sampled time in its tasks" ;;
    esac
    echo "$verdict" >"$tmp/verdict"
    [ "$verdict" = ok ]
    result $? "$what" "$tmp/verdict" "$tmp/functions.out" "$tmp/preg.out" "$tmp/task.out"
done <"$tmp/compare.out"
[ $i -eq 6 ] || { cat "$tmp/compare.out"; skip "the comparison failed" $((6 - i)); }

# Without frame pointers the walks end in the runtime: --stacks-unwind=dwarf's CFI-unwound stacks are the report's, and the experiment's.
if [ "$(uname -m)" != x86_64 ]; then
    skip "--stacks-unwind=dwarf is for x86-64" 2
    exit 0
fi
if ! nofp=$(test_program "gprofng-$cc-nofp" 2>"$tmp/build.err"); then
    skip "$cc did not build t/ompcollect-gprofng.c without frame pointers" 2
    exit 0
fi
run --runtime "$LIBOMP" -i 1ms --stacks-unwind=dwarf --gprofng="$tmp/cfi.er" -f json -o "$tmp/cfi.json" "$nofp" 0.5
if ! python3 -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["stacks"]["symbolized"])' "$tmp/cfi.json" 2>/dev/null; then
    skip "no report, or no symbolizer (libdw) in this build" 2
    exit 0
fi
gprofng_cfi() {
    env -u LD_PRELOAD gprofng display text "$@" "$tmp/cfi.er"
}
gprofng_cfi -header >"$tmp/cfi-header.out" 2>&1
grep -q "^No errors" "$tmp/cfi-header.out" && grep -q "^No warnings" "$tmp/cfi-header.out"
result $? "gprofng reads the experiment of a --stacks-unwind=dwarf run without an error or a warning" "$tmp/cfi-header.out" "$tmp/err"
gprofng_cfi -metrics e.totalcpu:i.totalcpu:i.ompwork:i.ompwait:i.ompovhd -functions >"$tmp/cfi-functions.out" 2>&1
python3 "$tmp/compare.py" "$tmp/cfi.json" "$tmp/cfi-functions.out" /dev/null "$cc" functions >"$tmp/verdict" 2>&1
[ "$(cat "$tmp/verdict")" = ok ]
result $? "without frame pointers (--stacks-unwind=dwarf) the program's functions have the report's CFI-unwound samples" "$tmp/verdict" "$tmp/cfi-functions.out"
