#!/bin/sh
# ompcollect-fortran.sh - examples/fortran_kernel.f90 (built by gfortran when configure found it) run on libomp under ompcollect: its parallel do is named kern::work at the directive's line, the external procedure's count_up (not gfortran's count_up_), its main program fortran_kernel, and no gfortran symbol (__kern_MOD_work, count_up_, MAIN__) is left in the text, JSON (but for "mangled") or folded stacks.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/examples/fortran_kernel.f90
program=$top_builddir/examples/fortran_kernel
seconds=${OMPCOLLECT_FORTRAN_SECONDS:-0.4}
parallel_line=$(grep -n '^ *!\$omp parallel do' "$source" | head -n 1 | cut -d: -f1)
external_line=$(grep -n '^ *!\$omp parallel do reduction' "$source" | head -n 1 | cut -d: -f1)
if ! grep -q '^#define HAVE_LIBDW 1' "$top_builddir/config.h"; then
    echo "1..0 # SKIP ompcollect was built without libdw: no names at all"
    exit 0
fi
if [ ! -x "$program" ]; then
    echo "1..0 # SKIP no examples/fortran_kernel: configure found no gfortran that builds OpenMP programs (its summary says; Debian: apt-get install gfortran)"
    exit 0
fi
echo "1..9"
n=0
# gfortran's program calls libgomp; ompcollect runs it on libomp (README, "GCC's libgomp").
# -O2 code keeps no frame pointers: the stacks are unwound with its CFI.
"$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/f.json" --save="$tmp/f.ses" \
    --stacks-unwind=dwarf --stacks-file="$tmp/f.folded" "$program" "$seconds" >"$tmp/f.out" 2>"$tmp/f.err"
status=$?
"$oc" report -o "$tmp/f.txt" "$tmp/f.ses" >/dev/null 2>>"$tmp/f.err"
ok "$([ $status = 0 ] && grep -q '^fortran_kernel: [1-9][0-9]* regions' "$tmp/f.out" && [ -s "$tmp/f.json" ] &&
    [ -s "$tmp/f.txt" ] && [ -s "$tmp/f.folded" ] && echo True || echo "exit $status")" \
    "the gfortran program ran on libomp and was reported" "$tmp/f.err"
near="abs(c['location']['line'] - $parallel_line) <= 1"
ok "$(python3 "$query" "$tmp/f.json" "len(r['constructs']) == 2 and [c['location']['function'] for c in r['constructs'] if $near] == ['kern::work']" 2>&1)" \
    "the parallel do is named kern::work at the directive's line $parallel_line (+-1)"
ok "$(python3 "$query" "$tmp/f.json" "all(c['location']['mangled'] == '__kern_MOD_work' and all(x['function'] == 'fortran_kernel' for x in c['location']['inlined_into']) for c in r['constructs'] if $near)" 2>&1)" \
    "JSON keeps the mangled __kern_MOD_work; the program it is inlined into is fortran_kernel"
ok "$(python3 "$query" "$tmp/f.json" "[(c['location']['function'], c['location']['mangled']) for c in r['constructs'] if abs(c['location']['line'] - $external_line) <= 1] == [('count_up', 'count_up_')]" 2>&1)" \
    "the external procedure's parallel do is named count_up at its line $external_line (+-1), JSON keeping count_up_ as mangled"
ok "$(python3 "$query" "$tmp/f.json" "[(w['what'], w['location']['function']) for w in r['wait_locations'] if w['state'] == 'IBAR' and abs(w['location']['line'] - $parallel_line) <= 1] == [('barrier (implicit)', 'kern::work')]" 2>&1)" \
    "the construct's closing barrier is named kern::work"
ok "$(grep -Eq "^  kern::work fortran_kernel\.f90:($((parallel_line - 1))|$parallel_line|$((parallel_line + 1))) " "$tmp/f.txt" && echo True || echo False)" \
    "the text report's construct row reads kern::work fortran_kernel.f90:$parallel_line" "$tmp/f.txt"
left=$(grep -E '_MOD_|MAIN__|main program|count_up_' "$tmp/f.txt" "$tmp/f.folded" | head -n 3 | tr '\n' ' ')
ok "${left:-True}" \
    "no gfortran symbol (__kern_MOD_, count_up_, MAIN__) in the text report or the folded stacks, nor the unnamed program's stand-in"
# Every string of the JSON but the mangled names it keeps on purpose.
python3 - "$tmp/f.json" >"$tmp/f.left" 2>&1 <<'PY'
import json, re, sys
def strings(value, key=None):
    if isinstance(value, dict):
        for k, v in value.items():
            if k != "mangled":
                yield from strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v, key)
    elif isinstance(value, str):
        yield key, value
left = [(k, v) for k, v in strings(json.load(open(sys.argv[1]))) if re.search(r"_MOD_|MAIN__|main program|count_up_", v)]
print(left if left else True)
PY
ok "$(cat "$tmp/f.left")" "no gfortran symbol in the JSON but its \"mangled\" members"
ok "$(grep -q '^main;fortran_kernel;kern::work;kern::work\._omp_fn\.0;WORK ' "$tmp/f.folded" && echo True || echo False)" \
    "--stacks: main;fortran_kernel;kern::work;kern::work._omp_fn.0 (the program by its name, the module procedure, its outlined body)" "$tmp/f.folded"
