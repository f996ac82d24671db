#!/bin/sh
# ompcollect-scaling.sh - ompcollect scaling on programs whose scaling is known (t/ompcollect-scaling.c): the runs and files it keeps, its figures recomputed from the reports it read, oversubscription said, programs that differ by count refused, --env, usage errors; with TIMING_CHECKS=1 (make check-timing) each program diagnosed with the right factor at the right construct.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-scaling.c
timing=${TIMING_CHECKS:-0}
echo "1..$((18 + 6 * timing))"
n=0

if ! command -v clang >/dev/null 2>&1 || ! built=$(test_program scaling-clang 2>"$tmp/build.err") \
    || ! cp "$built" "$tmp/scaling"; then
    skip "clang cannot build OpenMP programs here" $((18 + 6 * timing))
    exit 0
fi
prog=$tmp/scaling
# nproc counts OMP_NUM_THREADS as the cores (OMPCOLLECT_TEST_THREADS sets it); ompcollect counts the CPUs it may run on.
cores=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)

# sc DIR EXPRESSION: the Python expression over j (DIR/scaling.json), r[N] (the report at N threads) and
# row(FUNCTION) (the construct row whose location is in FUNCTION) prints True when it holds.
sc() {
    python3 - "$@" 2>&1 <<'EOF'
import glob, json, os, re, sys
where, expression = sys.argv[1], sys.argv[2]
j = json.load(open(os.path.join(where, "scaling.json")))
r = {}
for path in glob.glob(os.path.join(where, "threads-*.json")):
    r[int(re.search(r"threads-(\d+)", path).group(1))] = json.load(open(path))
def row(function):
    rows = [c for c in j["constructs"] if c["location"]["function"] == function]
    return rows[0] if len(rows) == 1 else None
def point(function, threads):
    return [p for p in row(function)["points"] if p["threads"] == threads][0]
# Computation scalability from 1 to 2 threads, from the reports' own counts.
cs = r[1]["efficiency"]["useful"] * r[1]["interval_ns"] / (r[2]["efficiency"]["useful"] * r[2]["interval_ns"]) if len(r) == 2 and r[2]["efficiency"] and r[2]["efficiency"]["useful"] else None
def known():
    return [(f, l) for f in ("even", "triangular", "critical", "false_sharing") for l in row(f)["losses"] if l["known"]]
def loss(function, to):
    return [l for l in (row(function) if function else j["whole"])["losses"] if l["to"] == to][0]
print(eval(expression))
EOF
}

# The four loops and the serial phase at 1 and 2 threads, small: what is kept, and its arithmetic.
"$oc" scaling --threads=2,1 --runtime "$LIBOMP" -i 1ms --dir="$tmp/c" "$prog" constructs 20 3 >"$tmp/c.txt" 2>"$tmp/c.err"
result $? "scaling runs the program at 1 and 2 threads" "$tmp/c.err"
LC_ALL=C ls "$tmp/c" >"$tmp/c.ls"
[ "$(cat "$tmp/c.ls" | tr '\n' ' ')" = "scaling.csv scaling.json scaling.svg scaling.txt threads-1.err threads-1.json threads-1.out threads-2.err threads-2.json threads-2.out " ]
result $? "each run's report, output and errors, and the analysis in four formats, are kept in the directory" "$tmp/c.ls"
grep -q "report $tmp/c/threads-2.json" "$tmp/c.err" && grep -q "the analysis is in $tmp/c/scaling.txt" "$tmp/c.err"
result $? "it says where each report and the analysis are" "$tmp/c.err"
cmp -s "$tmp/c.txt" "$tmp/c/scaling.txt"
result $? "the text on standard output is scaling.txt" "$tmp/c.txt"
ok "$(sc "$tmp/c" "sorted(row(f)['points'][k]['instances'] for f in ('even', 'triangular', 'critical', 'false_sharing') for k in (0, 1)) == [3] * 8")" \
    "every loop is one construct, matched by code location at both counts, with its 3 instances at each" "$tmp/c.txt"
ok "$(sc "$tmp/c" "[p['speedup'] for p in j['whole']['points']] == [1.0, round(r[1]['wall_ns'] / r[2]['wall_ns'], 3)]")" \
    "the whole run's speedup is the wall time at 1 thread over that at 2" "$tmp/c/scaling.json"
# Parallel efficiency and its factors are the report's own split; computation scalability the useful samples' ratio.
ok "$(sc "$tmp/c" "all(abs(p['parallel_efficiency'] - r[p['threads']]['efficiency']['useful'] / r[p['threads']]['efficiency']['samples']) < 6e-4 and abs(p['load_balance'] - 1 + r[p['threads']]['efficiency']['lost']['load_imbalance'] / r[p['threads']]['efficiency']['samples']) < 6e-4 for p in j['whole']['points'])")" \
    "parallel efficiency and load balance at each count are the report's useful and imbalance shares" "$tmp/c/scaling.json"
ok "$(sc "$tmp/c" "abs(j['whole']['points'][1]['computation_scalability'] - cs) < 6e-4 and abs(j['whole']['points'][1]['global_efficiency'] - cs * r[2]['efficiency']['useful'] / r[2]['efficiency']['samples']) < 6e-4")" \
    "computation scalability is the useful thread-time at 1 thread over that at 2, and global efficiency parallel x it" "$tmp/c/scaling.json"
# (A loop without samples at a count has no split: the others must have one.)
ok "$(sc "$tmp/c" "len(known()) >= 2 and all(abs(sum(l['lost'].values()) - (row(f)['points'][0]['global_efficiency'] - row(f)['points'][1]['global_efficiency'])) < 3e-3 for f, l in known())")" \
    "each construct's loss from 1 to 2 threads is split exactly among the five factors" "$tmp/c/scaling.json"
grep -q '^  from 1 to 2 threads, `triangular ompcollect-scaling.c:[0-9]*` \(loses [0-9]*% of its efficiency to\|keeps\)' "$tmp/c.txt"
result $? "the text says in words what the triangular loop loses from 1 to 2 threads" "$tmp/c.txt"
python3 -c "import xml.dom.minidom, sys; d = xml.dom.minidom.parse(sys.argv[1]); sys.exit(len(d.getElementsByTagName('polyline')) != 7 * 4)" \
    "$tmp/c/scaling.svg" 2>"$tmp/svg.err"
result $? "the picture is SVG with the seven lines of the whole run and of each of the three longest constructs" "$tmp/svg.err"

# One thread more than the cores: allowed, and said.
over=$((cores + 1))
"$oc" scaling --threads=1,$over --runtime "$LIBOMP" --dir="$tmp/o" "$prog" even 1 1 >"$tmp/o.txt" 2>"$tmp/o.err"
[ $? -eq 0 ] && grep -q "on $cores cores; $over threads: oversubscribed" "$tmp/o.txt" \
    && grep -q "$over threads (oversubscribed), run 1 of 1" "$tmp/o.err"
result $? "$over threads on $cores cores run, and are said to be oversubscribed" "$tmp/o.txt" "$tmp/o.err"

# A program whose output or exit status depends on the count does not do the same work: refused, unless told.
"$oc" scaling --threads=1,2 --runtime "$LIBOMP" --dir="$tmp/d" "$prog" threads >"$tmp/d.txt" 2>"$tmp/d.err"
[ $? -eq 1 ] && [ ! -s "$tmp/d.txt" ] && grep -q "output at 2 threads ($tmp/d/threads-2.out) differs from that at 1 thread ($tmp/d/threads-1.out) from line 1: so it may not do the same work at every count; --allow-differences goes on anyway" "$tmp/d.err"
result $? "a program whose output differs between counts is refused, naming both outputs" "$tmp/d.err"
"$oc" scaling --threads=1,2 --runtime "$LIBOMP" --dir="$tmp/s" "$prog" status >"$tmp/s.txt" 2>"$tmp/s.err"
[ $? -eq 1 ] && grep -q "exits with status 2 at 2 threads but 1 at 1 thread" "$tmp/s.err"
result $? "a program whose exit status differs between counts is refused" "$tmp/s.err"
"$oc" scaling --threads=1,2 --allow-differences --env=SCALING_TEAM --runtime "$LIBOMP" --dir="$tmp/e" "$prog" team 20 2 \
    >"$tmp/e.txt" 2>"$tmp/e.err"
[ $? -eq 0 ] && grep -q "going on (--allow-differences)" "$tmp/e.err" && [ "$(head -n 1 "$tmp/e/threads-2.out")" = "team 2" ]
result $? "--allow-differences goes on, and --env sets the program's own variable to the count" "$tmp/e.err" "$tmp/e/threads-2.out"

# Usage errors: status 2 and one line.
"$oc" scaling --threads=0,2 "$prog" >/dev/null 2>"$tmp/u1.err"
u1=$?
"$oc" scaling --trace=x "$prog" >/dev/null 2>"$tmp/u2.err"
u2=$?
"$oc" scaling --reports >/dev/null 2>"$tmp/u3.err"
u3=$?
[ $u1 -eq 2 ] && [ $u2 -eq 2 ] && [ $u3 -eq 2 ] && grep -q "takes up to 64 counts from 1 to 4096" "$tmp/u1.err" \
    && grep -q "unknown option '--trace=x'" "$tmp/u2.err" && [ "$(cat "$tmp/u1.err" "$tmp/u2.err" "$tmp/u3.err" | wc -l)" = 3 ]
result $? "a bad count, an option scaling does not pass on and --reports without reports are refused (status 2)" \
    "$tmp/u1.err" "$tmp/u2.err" "$tmp/u3.err"

# A report whose construct efficiencies do not follow its constructs is refused, naming the file.
python3 -c "import json, sys; d = json.load(open(sys.argv[1])); d['efficiency']['constructs'].pop(); json.dump(d, open(sys.argv[2], 'w'))" \
    "$tmp/c/threads-2.json" "$tmp/bad.json"
"$oc" scaling --reports "$tmp/c/threads-1.json" "$tmp/bad.json" >/dev/null 2>"$tmp/bad.err"
[ $? -eq 1 ] && grep -q "$tmp/bad.json.*efficiency.constructs.* is not an array of the [0-9]* rows of .constructs." "$tmp/bad.err"
result $? "a report whose efficiency rows do not follow its constructs is refused" "$tmp/bad.err"

# A short run's report may count fewer OpenMP threads than ran (a worker no sample found is not known to be
# one; 2 of 4 were seen in a 1 ms run): --reports takes the count a report's name says, as scaling names them.
mkdir -p "$tmp/short"
python3 -c "import json, sys; d = json.load(open(sys.argv[1])); d['totals']['threads'] = 1; json.dump(d, open(sys.argv[2], 'w')); json.dump(d, open(sys.argv[3], 'w'))" \
    "$tmp/c/threads-2.json" "$tmp/short/threads-2.json" "$tmp/short/run.json"
"$oc" scaling --reports -f json "$tmp/c/threads-1.json" "$tmp/short/threads-2.json" >"$tmp/short/named.json" 2>"$tmp/short.err" \
    && "$oc" scaling --reports "$tmp/c/threads-1.json" "$tmp/short/threads-2.json" >"$tmp/short/named.txt" 2>>"$tmp/short.err" \
    && "$oc" scaling --reports -f json "$tmp/c/threads-1.json" "$tmp/short/run.json" >"$tmp/short/unnamed.json" 2>>"$tmp/short.err"
[ $? -eq 0 ] && grep -q "^    2 threads $tmp/short/threads-2.json (its report counts 1 OpenMP threads)\$" "$tmp/short/named.txt" \
    && python3 -c "import json, sys; n, u = (json.load(open(p)) for p in sys.argv[1:]); sys.exit(not ([(c['threads'], c['runs']) for c in n['counts']] == [(1, 1), (2, 1)] and [(c['threads'], c['runs']) for c in u['counts']] == [(1, 2)]))" \
        "$tmp/short/named.json" "$tmp/short/unnamed.json"
result $? "--reports takes a report's count from its name (threads-2.json), else from the threads it counts" \
    "$tmp/short.err" "$tmp/short/named.txt"

[ "$timing" = 1 ] || exit 0

# What a machine left alone shows (make check-timing): each loop's loss named by its cause.  Enough work
# for some 300 samples per loop at 1 ms; the figures are shares, whatever the machine's speed.
"$oc" scaling --threads=1,2 --runtime "$LIBOMP" -i 1ms --dir="$tmp/t" "$prog" constructs 500 4 >"$tmp/t.txt" 2>"$tmp/t.err"
result $? "scaling runs the loops at 1 and 2 threads" "$tmp/t.err"
# The even loop has no cause of loss, but two busy cores of a virtual machine may share a physical core
# or stall one another (its speedup read 1.50, 1.87 and 2.00 in three runs on a quiet 2-core VM, the loss
# 13% to computation scalability, then 5% to a barrier): it must speed up, and lose less than every loop
# with a planted cause.
ok "$(sc "$tmp/t" "point('even', 2)['speedup'] >= 1.4 and all(point('even', 2)['global_efficiency'] > point(f, 2)['global_efficiency'] for f in ('triangular', 'critical', 'false_sharing'))")" \
    "the even loop speeds up and loses less than each loop with a planted cause" "$tmp/t.txt"
ok "$(sc "$tmp/t" "loss('triangular', 2)['largest'] == 'load_balance' and 0.55 <= point('triangular', 2)['load_balance'] <= 0.8")" \
    "the triangular loop loses most to load imbalance (load balance about 2/3 at 2 threads)" "$tmp/t.txt"
ok "$(sc "$tmp/t" "loss('critical', 2)['largest'] == 'synchronisation'")" \
    "the saturated critical section's loop loses most to synchronisation" "$tmp/t.txt"
# A busy machine stretches every loop's sampled work (a descheduled thread's samples still land in WORK):
# the even loop's must stay well above for the growth to be the shared line's (0.85 to 1.02 for the
# even loop, 0.09 for the shared line, on a quiet 2-core VM).
ok "$(sc "$tmp/t" "loss('false_sharing', 2)['largest'] == 'computation_scalability' and point('false_sharing', 2)['computation_scalability'] < 0.5 * point('even', 2)['computation_scalability']")" \
    "the counters sharing a cache line lose most to computation scalability (their work grows; the even loop's does not)" "$tmp/t.txt"
# A serial phase of 30% of the one-thread time by construction (a busy machine bends even the serial
# time's share: 0.37 was read beside other jobs).  The fraction fitted to the speedup is 0.3 only where the
# parallel loop gains 2x; a quiet 2-core VM gave it 1.5 to 2.0, so the fit is held to what Amdahl's law
# gives with the loop's own measured speedup and the serial share measured at one thread (f, within 0.05 of
# 0.3): 1 / S = f + (1 - f) / S_loop.  The figures are printed when it fails (once in ~20 quiet runs).
"$oc" scaling --threads=1,2 --runtime "$LIBOMP" -i 1ms --dir="$tmp/A" "$prog" amdahl 500 4 >"$tmp/A.txt" 2>"$tmp/A.err"
ok "$(sc "$tmp/A" "(lambda f, s: (abs(f - 0.3) <= 0.05 and abs(j['amdahl']['fit_fraction'] - (2 * (f + (1 - f) / s) - 1)) <= 0.1 and loss(None, 2)['largest'] == 'serialisation') or (j['amdahl'], s, loss(None, 2)['largest']))(j['amdahl']['time_fraction'], point('even', 2)['speedup'])")" \
    "a 30% serial phase: Amdahl's fraction about 0.3 from the serial time and from the speedup, and the run loses most to serialisation" "$tmp/A.txt"
