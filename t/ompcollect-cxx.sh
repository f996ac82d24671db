#!/bin/sh
# ompcollect-cxx.sh - builds t/ompcollect-cxx.cc (a parallel for in an inlined member function template and one in a lambda) with clang++ and g++ at -O2 (and with frame pointers for --stacks) and checks that the constructs are named by the inlined functions, demangled: shortened in the text report, whole in JSON with the mangled name and the function they were inlined into, and as frames of --stacks.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
source=$top_srcdir/t/ompcollect-cxx.cc
seconds=${OMPCOLLECT_CXX_SECONDS:-0.3}
relax_line=$(line_of cxx-relax)
lambda_line=$(line_of cxx-lambda)
step_line=$(line_of cxx-step)
main_step_line=$(line_of cxx-main-step)
if ! grep -q '^#define HAVE_LIBDW 1' "$top_builddir/config.h"; then
    echo "1..0 # SKIP ompcollect was built without libdw: no names at all"
    exit 0
fi
if ! grep -q '^#define HAVE_CXA_DEMANGLE 1' "$top_builddir/config.h"; then
    echo "1..0 # SKIP ompcollect was built without __cxa_demangle (configure's summary): C++ names stay mangled"
    exit 0
fi
echo "1..14"
n=0
for cxx in clang++ g++; do
    if ! command -v $cxx >/dev/null 2>&1; then
        skip "$cxx is not installed" 7
        continue
    fi
    name=cxx-$cxx
    # Built once (t/test-programs.sh); the stacks' build keeps frame pointers.
    if ! built=$(test_program "$name" 2>"$tmp/$name.build") || ! cp "$built" "$tmp/$name" ||
        ! built=$(test_program "$name-fp" 2>>"$tmp/$name.build") || ! cp "$built" "$tmp/$name-fp"; then
        skip "$cxx cannot build OpenMP programs: $(head -n 1 "$tmp/$name.build")" 7
        continue
    fi
    "$oc" --runtime "$LIBOMP" --interval=1ms -f json -o "$tmp/$name.json" \
        --save="$tmp/$name.ses" "$tmp/$name" "$seconds" >"$tmp/$name.out" 2>"$tmp/$name.err"
    status=$?
    "$oc" --runtime "$LIBOMP" --interval=1ms --stacks=folded -o "$tmp/$name.folded" "$tmp/$name-fp" "$seconds" \
        >/dev/null 2>>"$tmp/$name.err"
    "$oc" report -o "$tmp/$name.txt" "$tmp/$name.ses" >/dev/null 2>>"$tmp/$name.err"
    ok "$([ $status = 0 ] && [ -s "$tmp/$name.json" ] && [ -s "$tmp/$name.txt" ] && echo True || echo "exit $status")" \
        "$name: ran and reported" "$tmp/$name.err"
    relax="[c for c in r['constructs'] if c['location']['line'] == $relax_line and c['instances'] > 0]"
    ok "$(python3 "$query" "$tmp/$name.json" "len($relax) > 0 and all(c['location']['function'] == 'physics::Field<double>::relax(int)' for c in $relax)" 2>&1)" \
        "$name: the construct in the inlined template member is named physics::Field<double>::relax(int) at line $relax_line"
    ok "$(python3 "$query" "$tmp/$name.json" "all(c['location']['mangled'] == '_ZN7physics5FieldIdE5relaxEi' and [(x['function'], x['line']) for x in c['location']['inlined_into']] == [('physics::step(physics::Field<double>&)', $step_line), ('main', $main_step_line)] for c in $relax)" 2>&1)" \
        "$name: JSON keeps the mangled name and the inlined calls: into physics::step at line $step_line, into main at line $main_step_line"
    lambda="[c for c in r['constructs'] if c['location']['line'] == $lambda_line and c['instances'] > 0]"
    ok "$(python3 "$query" "$tmp/$name.json" "len($lambda) > 0 and all(c['location']['function'].startswith('main::') and 'operator()' in c['location']['function'] for c in $lambda)" 2>&1)" \
        "$name: the construct in the lambda is named main::...::operator() at line $lambda_line"
    ok "$(grep -q "^  physics::Field<\.\.\.>::relax ompcollect-cxx.cc:$relax_line " "$tmp/$name.txt" && echo True || echo False)" \
        "$name: the text table shortens it to physics::Field<...>::relax ompcollect-cxx.cc:$relax_line" "$tmp/$name.txt"
    ok "$(grep -q '_ZN7physics' "$tmp/$name.txt" "$tmp/$name.folded" && echo False || echo True)" \
        "$name: no mangled name in the text report or the folded stacks"
    ok "$(grep -q '^main;physics::step;physics::Field<double>::relax[; ]' "$tmp/$name.folded" && echo True || echo False)" \
        "$name: --stacks has the inlined functions as frames: main;physics::step;physics::Field<double>::relax" "$tmp/$name.folded"
done
