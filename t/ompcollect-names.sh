#!/bin/sh
# ompcollect-names.sh - builds examples/solver.c (every wait in it certain) with clang and GCC (with and without -g, and stripped) and checks that the report names each parallel construct, critical, lock and barrier by function and source line.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
# Its waits are made certain (see the file): the waits to name are there however busy the machine is.
source=$top_srcdir/examples/solver.c
seconds=${OMPCOLLECT_NAMES_SECONDS:-0.3}

solve_line=$(line_of solve-parallel)
barrier_line=$(line_of solve-barrier)
update_line=$(line_of update-parallel)
critical_line=$(line_of update-critical)
lock_line=$(line_of update-lock)

compilers=
for cc in clang gcc; do
    command -v $cc >/dev/null 2>&1 && compilers="$compilers $cc"
done
echo "1..30"
n=0
# check and checked (t/ompcollect-lib.sh); a failed check shows the report's constructs and waits.
names='"\n".join([str((c["location"]["function"], c["location"]["file"], c["location"]["line"], c["location"]["kind"])) for c in r["constructs"]] + [str((w["what"], w["location"]["function"], w["location"]["line"], w["object"]["function"])) for w in r["wait_locations"]])'
# Runs one build under ompcollect with a JSON report.
# gcc code's explicit barriers read EBAR only when OMPCOLLECTOR_GCC_BARRIERS=explicit asks (README).
# The waits are short and named only when a sample lands in them: 1 ms, whatever the default.
collect() {
    OMPCOLLECTOR_GCC_BARRIERS=explicit "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/$1.json" \
        --save="$tmp/$1.ses" "$tmp/$1" "$seconds" >"$tmp/$1.out" 2>"$tmp/$1.err"
    echo $? >"$tmp/$1.status"
}
# A construct row in function $1 (GCC may clone it as solve.constprop.0) at line $2.
construct() {
    echo "any((c['location']['function'] or '').split('.')[0] == '$1' and c['location']['line'] == $2 and c['location']['file'].endswith('solver.c') and c['instances'] > 0 for c in r['constructs'])"
}
# A wait row in state $1 at line $2 (an outlined body of the construct, so no function check).
waited() {
    echo "any(w['state'] == '$1' and w['location']['line'] == $2 and w['samples'] > 0 for w in r['wait_locations'])"
}

for cc in clang gcc; do
    case " $compilers " in
    *" $cc "*) ;;
    *)
        skip "$cc is not installed" 15
        continue
        ;;
    esac
    # Built once for all scripts (t/test-programs.sh), copied under the names the checks expect.
    if ! built=$(test_program solver-$cc 2>"$tmp/build.err") || ! cp "$built" "$tmp/solver-$cc" \
        || ! built=$(test_program solver-$cc-nodebug 2>>"$tmp/build.err") || ! cp "$built" "$tmp/solver-$cc-nodebug"; then
        skip "$cc cannot build OpenMP programs" 15
        continue
    fi
    cp "$tmp/solver-$cc-nodebug" "$tmp/solver-$cc-stripped" && strip "$tmp/solver-$cc-stripped"

    name=solver-$cc
    collect $name
    check $name "ran and reported (exit 0), schema_version 2, the lookup was available" \
        "$(cat "$tmp/$name.status") == 0 and r['schema_version'] == 2 and r['locations_known'] is True"
    check $name "construct of solve() at solver.c:$solve_line" "$(construct solve "$solve_line")"
    check $name "construct of update() at solver.c:$update_line" "$(construct update "$update_line")"
    check $name "critical(accum) waits at solver.c:$critical_line" "$(waited CTWT "$critical_line")"
    check $name "the critical's wait is named critical(accum), its object the compiler's .gomp_critical_user_accum variable" \
        "any(w['state'] == 'CTWT' and w['what'] == 'critical(accum)' and w['object']['function'].startswith('.gomp_critical_user_accum') and w['location']['line'] == $critical_line for w in r['wait_locations'])"
    check $name "lock waits at solver.c:$lock_line on the global symbol lk" \
        "any(w['state'] == 'LKWT' and w['location']['line'] == $lock_line and w['object']['function'] == 'lk' and w['what'] == 'lock \`lk\` (global)' for w in r['wait_locations'])"
    check $name "explicit barrier waits at solver.c:$barrier_line" "$(waited EBAR "$barrier_line")"
    check $name "no barrier wait is placed in the OpenMP runtime's own code (libomp sometimes gives a GCC region's join barrier such an address)" \
        "not [w for w in r['wait_locations'] if w['state'] in ('IBAR', 'EBAR') and any(x in (w['location']['module'] or '') for x in ('/libomp.so', '/libgomp.so', '/libiomp5.so'))]"
    check $name "raw addresses and the module map are in the JSON" \
        "all(int(c['location']['address'], 16) > 0 for c in r['constructs']) and any(m['path'].endswith('$name') for m in r['modules'])"
    checked $name "$names"

    name=solver-$cc-nodebug
    collect $name
    check $name "without -g: constructs still named solve and update (symbol + offset)" \
        "$(cat "$tmp/$name.status") == 0 and set((c['location']['function'] or '').split('.')[0] for c in r['constructs'] if c['location']['kind'] == 'symbol') >= {'solve', 'update'}"
    check $name "without -g: the lock is still named lk" \
        "any(w['state'] == 'LKWT' and w['object']['function'] == 'lk' for w in r['wait_locations'])"
    check $name "without -g: the critical is still named critical(accum)" \
        "any(w['state'] == 'CTWT' and w['what'] == 'critical(accum)' for w in r['wait_locations'])"
    checked $name "$names"

    name=solver-$cc-stripped
    collect $name
    check $name "stripped: ran and reported (exit 0)" "$(cat "$tmp/$name.status") == 0"
    check $name "stripped: constructs fall back to module + offset" \
        "len(r['constructs']) >= 2 and all(c['location']['kind'] == 'module' and c['location']['module'].endswith('$name') for c in r['constructs'])"
    checked $name "$names"
    n=$((n + 1))
    if "$oc" report -o "$tmp/$name.text" "$tmp/$name.ses" >/dev/null 2>&1 \
        && grep -q "solver-$cc-stripped+0x" "$tmp/$name.text"; then
        echo "ok $n - $name: the text report shows module+offset rows"
    else
        echo "not ok $n - $name: the text report shows module+offset rows"
        sed -n '/Parallel constructs/,/Most waited/s/^/# /p' "$tmp/$name.text" 2>/dev/null
    fi
done
