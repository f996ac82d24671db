#!/bin/sh
# ompcollect-serial.sh - serial code located: the samples a program's serial code takes are named by function and line (text, JSON and CSV), every one of them accounted for, and the serial-code opportunity names where the serial time went: t/ompcollect-serial.c built by clang and GCC at -O2.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-serial.c
per_compiler=9
echo "1..$((2 * per_compiler))"
n=0
first=$(line_of SERIAL_BEGIN) last=$(line_of SERIAL_END)
in_phase="f['location']['function'] == 'serial_phase' and $first <= f['location']['line'] <= $last"
for cc in clang gcc; do
    if ! command -v $cc >/dev/null 2>&1; then
        skip "$cc is not installed" $per_compiler
        continue
    fi
    # Built once (t/test-programs.sh).
    if ! built=$(test_program serial-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/serial-$cc"; then
        skip "$cc cannot build OpenMP programs" $per_compiler
        continue
    fi
    # 0.3 CPU-seconds of serial code, twice: some 600 samples at 1 ms whatever the machine's speed or load.
    "$oc" --runtime "$LIBOMP" --interval=1ms --save="$tmp/$cc.ses" -f json -o "$tmp/$cc.json" "$tmp/serial-$cc" 0.3 \
        >"$tmp/$cc.out" 2>"$tmp/$cc.err"
    [ $? -eq 0 ] && grep -q '^serial: done' "$tmp/$cc.out"
    result $? "$cc: the program ran under ompcollect" "$tmp/$cc.err"
    check $cc "the busiest serial function is serial_phase, named at a line of its body ($first-$last)" \
        "[($in_phase) for f in r['serial_code']['functions'][:1]] == [True]"
    check $cc "serial_phase holds at least 80% of the serial samples" \
        "sum(f['samples'] for f in r['serial_code']['functions'] if $in_phase) >= 0.8 * (r['serial_code']['located_samples'] + r['serial_code']['not_located'])"
    check $cc "every SERIAL sample of the initial thread is located or counted as not located" \
        "r['serial_code']['located_samples'] + r['serial_code']['not_located'] == initial['states']['SERIAL'] and r['serial_code']['located_samples'] == sum(f['samples'] for f in r['serial_code']['functions'])"
    check $cc "the first opportunity is the serial code, at serial_phase, and its detail gives serial_phase's share" \
        "[(o['kind'], o['location']['function'], 'of it in serial_phase' in o['detail']) for o in r['opportunities'][:1]] == [('serial', 'serial_phase', True)]"
    checked $cc "[(f['location']['function'], f['location'].get('line'), f['samples']) for f in r['serial_code']['functions'][:3]]"
    # The same run, saved, in the other formats.
    "$oc" report --format=text -o "$tmp/$cc.txt" "$tmp/$cc.ses" 2>>"$tmp/$cc.err"
    sed -n '/^Serial code by location/{n;n;p;q}' "$tmp/$cc.txt" >"$tmp/$cc.row"
    grep -Eq "^  serial_phase ompcollect-serial\.c:[0-9]+ " "$tmp/$cc.row"
    result $? "$cc: the text's \"Serial code by location\" names serial_phase at its file and line first" "$tmp/$cc.row"
    "$oc" report --format=csv -o "$tmp/$cc.csv" "$tmp/$cc.ses" 2>>"$tmp/$cc.err"
    grep -E '^serial_location,0x[0-9a-f]+,serial_phase,[^,]*ompcollect-serial\.c,[0-9]+,' "$tmp/$cc.csv" >"$tmp/$cc.csvrow"
    [ "$(wc -l <"$tmp/$cc.csvrow")" -eq 1 ]
    result $? "$cc: the CSV table serial_location has one row for serial_phase" "$tmp/$cc.csvrow" "$tmp/$cc.err"
    # A serial sleep of 0.5 s (at least 0.4 s of samples at the run's interval): the samples the agent held back
    # during it arrive in its unblock, and
    # count where the program slept -- nap's nanosleep call -- not in the C library's signal mask call.
    # Its call stacks too, walked by frame pointers, which the program's -O2 code does not keep.
    "$oc" --runtime "$LIBOMP" --interval=1ms --stacks-file="$tmp/$cc.nap.folded" -f json -o "$tmp/$cc.nap.json" \
        "$tmp/serial-$cc" 0.02 0.5 >"$tmp/$cc.nap.out" 2>"$tmp/$cc.nap.err"
    python3 "$query" "$tmp/$cc.nap.json" "('interval', r['interval_ns'], 'rows', [(f['location']['function'], f['location'].get('line'), f['samples']) for f in r['serial_code']['functions'][:4]])" \
        >"$tmp/$cc.nap.rows" 2>&1
    ok "$(python3 "$query" "$tmp/$cc.nap.json" "[(f['location']['function'], f['location'].get('line'), f['samples'] * r['interval_ns'] >= 0.4e9) for f in r['serial_code']['functions'][:1]] == [('nap', $(line_of NAP), True)] and not any('sigmask' in (f['location']['function'] or '') for f in r['serial_code']['functions'])" 2>&1)" \
        "$cc: a serial sleep's 0.5 s is serial code at its call (nap, line $(line_of NAP)), not in the signal mask call where its samples arrive" \
        "$tmp/$cc.nap.rows"
    # The samples held for the sleep arrive in the C library's mask call, whose frames keep no frame pointer:
    # the walk starts at the program's call of the sleep, so its stacks end in nap, not in nothing.
    # At least 0.4 s of samples at the run's interval (which a test stage may scale).
    napped=$(awk '/;nap;SERIAL [0-9]+$/ { n += $NF } END { print n + 0 }' "$tmp/$cc.nap.folded")
    least=$(python3 "$query" "$tmp/$cc.nap.json" "int(0.4e9 / r['interval_ns'])" 2>/dev/null)
    [ -n "$least" ] && [ "$napped" -ge "$least" ]
    result $? "$cc: --stacks (frame pointers): the sleep's samples are stacks that end in nap ($napped samples, at least ${least:-?})" \
        "$tmp/$cc.nap.folded"
done
