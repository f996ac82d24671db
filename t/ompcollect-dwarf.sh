#!/bin/sh
# ompcollect-dwarf.sh - --stacks-unwind=dwarf on t/ompcollect-dwarf.c built by clang and GCC -O2 without frame pointers: the stacks of a task tree reach main, a libm caller stays in its stacks, a sample in an epilogue finds its callers (the red zone), no runtime or collector frame (nor the agent's mask call) shows, the report says how stacks were unwound; the default frame-pointer walk of the same program takes no data word for a frame and says to use --stacks-unwind=dwarf.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
per_compiler=10
tests=$((1 + 2 * per_compiler))
echo "1..$tests"
n=0
result() { # result DESCRIPTION PYTHON-EXPRESSION [RUN] (over r, RUN's JSON report ($cc by default), and stacks: (frames, state, samples))
    n=$((n + 1))
    if python3 - "$tmp/${3:-$cc}.json" "$tmp/${3:-$cc}.folded" "$2" >"$tmp/why" 2>&1 <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
stacks = []
for line in open(sys.argv[2]):
    text, count = line.rstrip("\n").rsplit(" ", 1)
    parts = text.split(";")
    stacks.append((parts[:-1], parts[-1], int(count)))
runtime = re.compile(r"^(__kmp|__kmpc|GOMP_|\[(libomp|libgomp|libompcollector|libompcollect-agent)\.so)")
value = eval(sys.argv[3])
print(value)
sys.exit(0 if value is True else 1)
PY
    then echo "ok $n - $cc: $1"; else echo "not ok $n - $cc: $1"; sed 's/^/# /' "$tmp/why" | head -n 5; fi
}
n=$((n + 1))
"$oc" --stacks-unwind=bogus true >/dev/null 2>"$tmp/bad.err"
if [ $? -eq 125 ] && grep -q "stacks-unwind" "$tmp/bad.err"; then
    echo "ok $n - --stacks-unwind=bogus is refused with exit 125"
else
    echo "not ok $n - --stacks-unwind=bogus is refused with exit 125"
fi
if [ "$(uname -m)" != x86_64 ]; then
    cc=all skip "--stacks-unwind=dwarf is for x86-64" $((tests - n))
    exit 0
fi
for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" $per_compiler
        continue
    fi
    # -O2 without -fno-omit-frame-pointer: x86-64 compilers keep no frame pointers (GCC runs on libomp through its libgomp substitute).
    # Built once (t/test-programs.sh).
    if ! built=$(test_program dwarf-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/dwarf-$cc"; then
        skip "$cc cannot build OpenMP programs" $per_compiler
        continue
    fi
    # The interval is given: the counts below are of samples, and the default follows the kernel's tick.
    "$oc" --runtime "$LIBOMP" --stacks-unwind=dwarf --interval=2ms -f json -o "$tmp/$cc.json" --stacks-file="$tmp/$cc.folded" \
        "$tmp/dwarf-$cc" "${OMPCOLLECT_DWARF_SECONDS:-0.6}" >/dev/null 2>"$tmp/$cc.err"
    if ! python3 -c "import json,sys; sys.exit(0 if json.load(open('$tmp/$cc.json'))['stacks']['symbolized'] else 1)" 2>/dev/null; then
        skip "$cc: no report, or no symbolizer (libdw) in this build" $per_compiler
        continue
    fi
    # Samples with the user's code on the stack: at least 100 of them, so 95% leaves a margin of counts, not of time
    # (about 750 at 2 ms: 0.3 s of libm and 0.6 s of task trees on each thread).
    result "with the user's code on the stack, at least 95% of at least 100 samples reach main" \
        "(lambda user: user >= 100 and sum(c for f, s, c in stacks if f[:1] == ['main']) >= 0.95 * user)(sum(c for f, s, c in stacks if [x for x in f if not x.startswith('[')]))"
    result "every fib frame lies under main and task_tree" \
        "any('fib' in f for f, s, c in stacks) and (lambda bad: not bad or bad)([';'.join(f) for f, s, c in stacks if 'fib' in f and f[:2] != ['main', 'task_tree']][:5])"
    # pops restores the frame pointer in its epilogue, and epilogue_loop's frame is found from it: a sample after the
    # pop reads the saved value in the red zone (0.3 s of wall-clock time: about 150 samples at 2 ms, most in pops).
    result "a frame pointer an epilogue popped is read from the red zone: every pops frame lies under main and epilogue_loop" \
        "sum(c for f, s, c in stacks if 'pops' in f) >= 20 and (lambda bad: not bad or bad)([';'.join(f) for f, s, c in stacks if 'pops' in f and f[:2] != ['main', 'epilogue_loop']][:5])"
    result "libm keeps its caller: every cos or sin frame lies under main and init_data" \
        "any(re.match(r'_*(cos|sin)', x) for f, s, c in stacks for x in f) and all(f[:2] == ['main', 'init_data'] for f, s, c in stacks if any(re.match(r'_*(cos|sin)', x) for x in f))"
    result "no runtime, shim or agent frame (nor what they called) in any stack" \
        "not [x for f, s, c in stacks for x in f if runtime.match(x) or re.match(r'_*sched_yield', x)]"
    # The held-back samples all arrive in the unblocking call: without the fix nearly all of mask_loop's samples end there.
    # mask_loop runs 0.6 s of wall-clock time, 300 ticks at 2 ms whatever the CPU's speed, most of them inside the
    # mask, where a signal held back counts once: about 60 samples (0.15 s gave 12, and 9 beside two CPU hogs).
    # On a failure the value shows (samples in mask_loop, of them in the mask call, all under main and mask_loop).
    result "samples held back while mask_loop blocked signals count in mask_loop under main, at most half in the mask call" \
        "(lambda mine: (lambda total, masked, under: total >= 10 and under and masked <= 0.5 * total or (total, masked, under))(sum(c for f, s, c in mine), sum(c for f, s, c in mine if f[-1].startswith('pthread_sigmask')), all(f[:2] == ['main', 'mask_loop'] for f, s, c in mine)))([x for x in stacks if 'mask_loop' in x[0]])"
    result "the report says how the stacks were unwound: most by CFI over stack copies, and does not say frame pointers are missing" \
        "r['stacks']['unwinding']['cfi'] > r['stacks']['unwinding']['frame_pointers'] and 'slice_too_small' in r['stacks']['unwinding']['cut_short'] and r['stacks']['frame_pointers_missing'] is False"
    # The same program under the default frame-pointer walk: list_loop's samples find the list in the frame-pointer
    # register, and its doubles were frames (0x412e...) before the walk's addresses were checked against the modules' code.
    "$oc" --runtime "$LIBOMP" --stacks --interval=2ms -f json -o "$tmp/$cc-fp.json" --stacks-file="$tmp/$cc-fp.folded" \
        --save="$tmp/$cc-fp.ses" "$tmp/dwarf-$cc" "${OMPCOLLECT_DWARF_SECONDS:-0.6}" >/dev/null 2>"$tmp/$cc-fp.err"
    "$oc" report --stacks -o "$tmp/$cc-fp.txt" "$tmp/$cc-fp.ses" >/dev/null 2>&1
    # list_loop runs 0.15 s of wall-clock time: about 75 samples at 2 ms, whatever the CPU's speed.
    result "frame pointers: no frame is a raw address outside the modules; list_loop's stacks end at [incomplete stack: not code]" \
        "not [x for f, s, c in stacks for x in f if re.match(r'^0x[0-9a-f]+$', x)] and r['stacks']['not_code'] >= 10 and any(f[:1] == ['[incomplete stack: not code]'] for f, s, c in stacks if 'sum_list' in f)" "$cc-fp"
    result "frame pointers: the JSON says they are missing" "r['stacks']['frame_pointers_missing'] is True" "$cc-fp"
    n=$((n + 1))
    if grep -q -- '--stacks-unwind=dwarf' "$tmp/$cc-fp.err" && grep -q 'keeps no frame pointers; --stacks-unwind=dwarf' "$tmp/$cc-fp.txt"; then
        echo "ok $n - $cc: frame pointers: stderr and the text report's stacks section name --stacks-unwind=dwarf"
    else
        echo "not ok $n - $cc: frame pointers: stderr and the text report's stacks section name --stacks-unwind=dwarf"
        sed 's/^/# /' "$tmp/$cc-fp.err" | head -n 5
    fi
done
