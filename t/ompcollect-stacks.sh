#!/bin/sh
# ompcollect-stacks.sh - builds t/ompcollect-stacks.c with clang and GCC (-g -fno-omit-frame-pointer) and checks --stacks: folded stacks start at main, hold no runtime frame, continue workers' stacks through the forking function, add up to the samples, and get no hint that frame pointers are missing.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
seconds=${OMPCOLLECT_STACKS_SECONDS:-0.25}

per_compiler=12
echo "1..$((2 * per_compiler + 5))"
n=0

# check NAME DESCRIPTION EXPRESSION: queues one test, a Python expression over one run:
# r (the JSON report) and stacks, a list of (frames, state, samples) from the folded
# file, frames outermost first.  checked NAME evaluates the queue in one python3 and
# prints a TAP line per test, in order.
check() {
    printf '%s\t%s\n' "$2" "$3" >>"$tmp/$1.checks"
}
checked() {
    name=$1
    if [ ! -s "$tmp/$name.json" ] || [ ! -s "$tmp/$name.folded" ]; then
        while IFS="$tab" read -r description expression; do
            n=$((n + 1))
            echo "not ok $n - $name: $description # no report or no folded stacks"
        done <"$tmp/$name.checks"
        sed 's/^/# stderr: /' "$tmp/$name.err" 2>/dev/null | head -n 10
        rm -f "$tmp/$name.checks"
        return
    fi
    python3 - "$tmp/$name.json" "$tmp/$name.folded" "$tmp/$name.checks" >"$tmp/$name.values" 2>&1 <<'EOF'
import json, re, sys
r = json.load(open(sys.argv[1]))
stacks = []
for line in open(sys.argv[2]):
    text, count = line.rstrip("\n").rsplit(" ", 1)
    parts = text.split(";")
    stacks.append((parts[:-1], parts[-1], int(count)))
states = set(r["states"])
mine = {"spin", "recurse", "worker_only", "recursion_region", "fib", "task_tree", "inner_leaf", "inner_region", "nested_regions"}
runtime = re.compile(r"^(__kmp|__kmpc|GOMP_|omp_|\[(libomp|libgomp|libompcollector|libompcollect-agent)\.so)")
def has(frames, *names):
    """Whether the frames hold `names` in this order (GCC may clone a function as name.constprop.0)."""
    at = 0
    for frame in frames:
        if at < len(names) and frame.split(".")[0] == names[at]:
            at += 1
    return at == len(names)
# One line per test: its value, or the error it raised (each test fails on its own).
for line in open(sys.argv[3]):
    try:
        value = eval(line.rstrip("\n").split("\t", 1)[1], globals())
    except Exception as error:
        value = "%s: %s" % (type(error).__name__, error)
    print(str(value).replace("\n", " "))
EOF
    while IFS="$tab" read -r description expression; do
        n=$((n + 1))
        IFS= read -r value <&3
        if [ "$value" = True ]; then
            echo "ok $n - $name: $description"
        else
            echo "not ok $n - $name: $description"
            echo "# expression: $expression -> $value" | head -n 5
            # Stacks outside main, the most sampled, and the least (where a rare path shows).
            { grep -v '^main;' "$tmp/$name.folded" | head -n 10; sort -t' ' -k2 -rn "$tmp/$name.folded" | head -n 5
              sort -t' ' -k2 -n "$tmp/$name.folded" | head -n 5; } | sed 's/^/# /'
        fi
    done <"$tmp/$name.checks" 3<"$tmp/$name.values"
    rm -f "$tmp/$name.checks"
}
tab=$(printf '\t')

for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" $per_compiler
        continue
    fi
    name=stacks-$cc
    # Built once (t/test-programs.sh).
    if ! built=$(test_program $name 2>"$tmp/build.err") || ! cp "$built" "$tmp/$name"; then
        skip "$cc cannot build OpenMP programs" $per_compiler
        continue
    fi
    # The interval is given: the checks need samples in short paths, and the default follows the kernel's tick.
    "$oc" --runtime "$LIBOMP" --stacks --interval=2ms -f json -o "$tmp/$name.json" --stacks-file="$tmp/$name.folded" \
        "$tmp/$name" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err"
    status=$?
    check $name "ran (exit $status), every folded line is 'frames;STATE count' with a state of the API" \
        "$status == 0 and len(stacks) > 0 and all(s in states and c > 0 and '' not in f for f, s, c in stacks)"
    check $name "the counts add up to the samples recorded (all threads)" \
        "sum(c for f, s, c in stacks) == r['totals']['samples'] + r['other_threads']['samples'] == r['stacks']['samples'] and r['stacks']['not_recorded'] == 0"
    # Built with frame pointers: the hint to use --stacks-unwind=dwarf (t/ompcollect-dwarf.sh) must not show here.
    check $name "frame pointers kept: no stack cut at a non-code address, no hint that they are missing (JSON, stderr)" \
        "r['stacks']['not_code'] == 0 and r['stacks']['frame_pointers_missing'] is False and '--stacks-unwind' not in open('$tmp/$name.err').read()"
    checked $name
    if ! python3 -c "import json,sys; sys.exit(0 if json.load(open('$tmp/$name.json'))['stacks']['symbolized'] else 1)" 2>/dev/null; then
        skip "no symbolizer (libdw) in this build: frames are raw addresses" $((per_compiler - 2))
        continue
    fi
    check $name "every stack in an OpenMP state starts at main (IDLE, and OVHD of a worker outside every task: nothing of the user's)" \
        "all(f[:1] == ['main'] for f, s, c in stacks if s not in ('SERIAL', 'IDLE', 'OVHD')) and all(f == [] or f[:1] == ['main'] for f, s, c in stacks if s in ('IDLE', 'OVHD'))"
    check $name "SERIAL stacks outside main hold none of the program's functions (thread starts and ends, the loader)" \
        "not [f for f, s, c in stacks if s == 'SERIAL' and f[:1] != ['main'] and set(x.split('.')[0] for x in f) & mine]"
    check $name "no runtime, shim or agent frame in any stack" \
        "not [x for f, s, c in stacks for x in f if runtime.match(x)]"
    check $name "recursion under a parallel region: 11 recurse frames above recursion_region" \
        "any(has(f, 'main', 'recursion_region', *(['recurse'] * 11), 'spin') for f, s, c in stacks if s == 'WORK')"
    check $name "every recurse frame lies under main and recursion_region" \
        "all(has(f, 'main', 'recursion_region', 'recurse') for f, s, c in stacks if 'recurse' in f)"
    # A sample can land in worker_only itself, before it calls recurse (a
    # few instructions: rare; a make -j2 check here met one).
    check $name "a worker's stack (worker_only runs on thread 1 alone) continues through the forking function" \
        "any(has(f, 'main', 'recursion_region', 'worker_only', 'recurse') for f, s, c in stacks) and all(has(f, 'main', 'recursion_region', 'worker_only') for f, s, c in stacks if 'worker_only' in f)"
    check $name "task tree: every fib frame lies under main and task_tree, on both threads' samples" \
        "sum(c for f, s, c in stacks if 'fib' in [x.split('.')[0] for x in f]) > 0 and all(has(f, 'main', 'task_tree', 'fib') for f, s, c in stacks if 'fib' in [x.split('.')[0] for x in f])"
    check $name "nested regions: inner_leaf lies under main, nested_regions and inner_region" \
        "any('inner_leaf' in f or has(f, 'inner_region', 'spin') for f, s, c in stacks) and all(has(f, 'main', 'nested_regions', 'inner_region') for f, s, c in stacks if 'inner_leaf' in f or 'inner_region' in f)"
    check $name "the JSON carries a call tree per state, WORK's rooted at main" \
        "any(t['state'] == 'WORK' and t['children'][0]['name'] == 'main' and t['samples'] == sum(ch['samples'] for ch in t['children']) for t in r['stacks']['trees'])"
    checked $name
done

# The report itself as folded stacks, and the text report's call trees.
name=stacks-report
if command -v clang >/dev/null 2>&1 && [ -x "$tmp/stacks-clang" ]; then
    "$oc" --runtime "$LIBOMP" --stacks=folded -o "$tmp/$name.txt" --save="$tmp/$name.ses" "$tmp/stacks-clang" "$seconds" \
        recursion+deep >/dev/null 2>"$tmp/$name.err"
    n=$((n + 1))
    if [ -s "$tmp/$name.txt" ] && grep -Eqv '^.* [0-9]+$' "$tmp/$name.txt"; then
        echo "not ok $n - --stacks=folded: the report is folded stacks only"
        head -n 5 "$tmp/$name.txt" | sed 's/^/# /'
    elif grep -q '^main;recursion_region;' "$tmp/$name.txt"; then
        echo "ok $n - --stacks=folded: the report is folded stacks only"
    else
        echo "not ok $n - --stacks=folded: the report is folded stacks only"
        sed 's/^/# /' "$tmp/$name.err" | head -n 5
    fi
    # 100 recurse frames: the stack keeps its innermost and outermost 32 and says how many it left out.
    n=$((n + 1))
    if python3 - "$tmp/$name.txt" <<'EOF'
import re, sys
deep = []
for line in open(sys.argv[1]):
    frames = line.rsplit(" ", 1)[0].split(";")
    if frames[:2] == ["main", "deep_region"] and frames[-2:] == ["spin", "WORK"]:
        deep.append(frames[:-1])
ok = len(deep) > 0
for frames in deep:
    marks = [int(m.group(1)) for m in (re.match(r"^\[(\d+) frames elided\]$", f) for f in frames) if m]
    ok = ok and len(marks) == 1 and marks[0] + frames.count("recurse") == 100
print("# %d deep stacks; first: %s" % (len(deep), ";".join(deep[0]) if deep else "none"))
sys.exit(0 if ok else 1)
EOF
    then
        echo "ok $n - a stack deeper than 64 frames keeps main and the leaf, with [N frames elided] for exactly the frames left out"
    else
        echo "not ok $n - a stack deeper than 64 frames keeps main and the leaf, with [N frames elided] for exactly the frames left out"
    fi
    # The same run's text report (its saved record): a run of recursive calls is one row, so the
    # 100-frame recursion leaves rows for recursion_region, its sibling.
    "$oc" report --stacks -o "$tmp/$name.text" "$tmp/$name.ses" >/dev/null 2>&1
    n=$((n + 1))
    sed -n '/^Call paths by state/,/^$/p' "$tmp/$name.text" >"$tmp/$name.tree"
    if grep -Eq '^ +[0-9.]+% +deep_region$' "$tmp/$name.tree" && grep -Eq '^ +[0-9.]+% +recursion_region$' "$tmp/$name.tree" \
        && grep -Eq '^ +[0-9.]+% +recurse \(x[0-9]+\)$' "$tmp/$name.tree"; then
        echo "ok $n - the text report shows a call tree per state, a recursion as one row (recurse (xN)) beside its siblings"
    else
        echo "not ok $n - the text report shows a call tree per state, a recursion as one row (recurse (xN)) beside its siblings"
        sed 's/^/# /' "$tmp/$name.tree" | head -n 30
    fi
else
    skip "clang did not build the test program" 3
fi

# Options that cannot work are refused before the program runs.
n=$((n + 1))
"$oc" --stacks=bogus true >/dev/null 2>"$tmp/bad.err"
if [ $? -eq 125 ] && grep -q "stacks" "$tmp/bad.err"; then
    echo "ok $n - --stacks=bogus is refused with exit 125"
else
    echo "not ok $n - --stacks=bogus is refused with exit 125"
fi
n=$((n + 1))
"$oc" --stacks --no-sample true >/dev/null 2>"$tmp/bad.err" && status=0 || status=$?
"$oc" --stacks=folded -f json true >/dev/null 2>>"$tmp/bad.err" && status2=0 || status2=$?
if [ "$status" -eq 125 ] && [ "$status2" -eq 125 ]; then
    echo "ok $n - --stacks with --no-sample, and --stacks=folded with --format, are refused"
else
    echo "not ok $n - --stacks with --no-sample, and --stacks=folded with --format, are refused ($status, $status2)"
    sed 's/^/# /' "$tmp/bad.err"
fi
