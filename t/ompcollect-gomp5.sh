#!/bin/sh
# ompcollect-gomp5.sh - GCC programs on LLVM's libomp in libgomp's place: OpenMP 5.x names bound to libgomp's versions run, a name nobody provides is refused before the program runs with its symbol and version, frames of the runtime standing in for libgomp never show in --stacks, and a program the loader refuses is not called static or setuid.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
echo "1..11"
n=0

if ! command -v gcc >/dev/null 2>&1; then
    skip "gcc is not installed" 11
    exit 0
fi
build() {
    gcc -fopenmp -g -O1 -fno-omit-frame-pointer -o "$tmp/$1" "$top_srcdir/t/$1.c" 2>"$tmp/$1.build"
}

# 1-3: omp_fulfill_event@OMP_5.0.1 and its kin, which no libomp defines under those versions.
if ! build gomp5-api; then
    skip "gcc cannot build OpenMP programs" 3
else
    readelf --dyn-syms -W "$tmp/gomp5-api" >"$tmp/api.syms" 2>&1
    grep -q 'omp_fulfill_event@OMP_5\.0\.1' "$tmp/api.syms"
    result $? "gcc binds omp_fulfill_event to libgomp's version OMP_5.0.1" "$tmp/api.syms"
    run -f json -o "$tmp/api.json" "$tmp/gomp5-api"
    [ "$status" -eq 0 ] && grep -qx 'threads 2 aligned 1 teams 1 device 1' "$tmp/out" \
        && holds "$tmp/api.json" "r['runtime']['version'].startswith('LLVM libomp') and r['totals']['forks'] == 1" 2>/dev/null
    result $? "it runs under ompcollect on libomp (exit $status), its OpenMP 5.x calls answered, and the report is written" \
        "$tmp/err" "$tmp/out"
    # GOMP_task's detach argument is GCC's; a libomp that ignores it leaves the event unset, with or without ompcollect.
    mkdir "$tmp/plain" && ln -s "$top_builddir/tools/gomp/.libs/libgomp.so.1" "$tmp/plain/libgomp.so.1" \
        && ln -s "$LIBOMP" "$tmp/plain/libompcollect-runtime.so"
    if ! LD_LIBRARY_PATH=$tmp/plain "$tmp/gomp5-api" detach >"$tmp/plain.out" 2>&1; then
        skip "$LIBOMP does not implement GCC's detach clause (the program fails on it without ompcollect too)"
    else
        run "$tmp/gomp5-api" detach
        [ "$status" -eq 0 ] && grep -qx 'fulfilled 1' "$tmp/out"
        result $? "a detached task fulfilled with omp_fulfill_event runs under ompcollect (exit $status)" "$tmp/err" "$tmp/out"
    fi
fi

# 4-6: a program needing a version no runtime has (crafted: GOMP_99.0) is refused before it runs, naming it.
mkdir "$tmp/fake" "$tmp/td"
printf 'GOMP_99.0 { global: GOMP_nonexistent_entry; local: *; };\n' >"$tmp/fake/v.map"
printf 'void GOMP_nonexistent_entry(void) {}\n' >"$tmp/fake/f.c"
cat >"$tmp/needs.c" <<'CODE'
#include <stdio.h>
void GOMP_nonexistent_entry(void);
int main(int argc, char **argv)
{
    FILE *mark = fopen(argv[1], "w");
    if (mark != NULL)
        fclose(mark);
    if (argc > 5)
        GOMP_nonexistent_entry();
    return 0;
}
CODE
if ! gcc -shared -fPIC -Wl,-soname,libgomp.so.1 -Wl,--version-script="$tmp/fake/v.map" -o "$tmp/fake/libgomp.so.1" \
        "$tmp/fake/f.c" 2>"$tmp/fake.build" || ! gcc -o "$tmp/needs" "$tmp/needs.c" "$tmp/fake/libgomp.so.1" 2>>"$tmp/fake.build"; then
    skip "gcc cannot build a library with a version script" 3
else
    TMPDIR=$tmp/td run "$tmp/needs" "$tmp/ran"
    [ "$status" -eq 125 ] && grep -q "GOMP_nonexistent_entry@GOMP_99.0 (needed by $tmp/needs)" "$tmp/err" \
        && ! grep -qi 'static\|setuid\|set-user-ID' "$tmp/err"
    result $? "refused with exit 125 ($status), naming GOMP_nonexistent_entry@GOMP_99.0 and the file that needs it" "$tmp/err"
    [ ! -e "$tmp/ran" ]
    result $? "the refused program never ran"
    [ -z "$(ls -A "$tmp/td")" ]
    result $? "the private directory is gone after the refusal" "$tmp/err"
fi

# 7-10: samples inside the runtime (GOMP_task copying each task's block): no raw address, no runtime frame.
if ! build gomp5-copies; then
    skip "gcc cannot build OpenMP programs" 4
else
    run --stacks --interval=1ms -f json -o "$tmp/copies.json" --stacks-file="$tmp/copies.folded" --save="$tmp/copies.ses" \
        "$tmp/gomp5-copies"
    "$oc" report --stacks=folded -o "$tmp/replay.folded" "$tmp/copies.ses" >/dev/null 2>>"$tmp/err"
    if [ "$status" -ne 0 ] || [ ! -s "$tmp/copies.folded" ]; then
        result 1 "the copies program ran with --stacks (exit $status)" "$tmp/err"
        skip "no folded stacks" 3
    elif ! holds "$tmp/copies.json" "r['stacks']['symbolized']"; then
        result 0 "the copies program ran with --stacks"
        skip "no symbolizer (libdw) in this build: frames are raw addresses" 3
    else
        result 0 "the copies program ran with --stacks"
        # frames FILE: every frame of every folded line, one a line.
        frames() { sed 's/ [0-9]*$//; s/;[A-Z]*$//' "$1" | tr ';' '\n'; }
        frames "$tmp/copies.folded" | grep -E '^(0x[0-9a-f]+|GOMP_.*|__kmp.*|omp_.*|\[lib(g?omp|ompcollect-runtime)[^]]*\])$' \
            >"$tmp/bad" && status=1 || status=0
        result $status "no raw address and no runtime frame in the live run's stacks" "$tmp/bad" "$tmp/copies.folded"
        awk '/;make_tasks;/ { s += $NF } END { exit !(s > 0) }' "$tmp/copies.folded"
        result $? "samples under make_tasks keep their call path" "$tmp/copies.folded"
        frames "$tmp/replay.folded" | grep -E '^(0x[0-9a-f]+|GOMP_.*|__kmp.*)$' >"$tmp/bad" && status=1 || status=0
        [ -s "$tmp/replay.folded" ] && [ "$status" -eq 0 ]
        result $? "nor in the saved run's, reported after the private directory is gone" "$tmp/bad" "$tmp/replay.folded"
    fi
fi

# 11: a program the loader refuses for a reason of its own (a library gone) is not called static or setuid.
printf 'int gone(void) { return 0; }\n' >"$tmp/gone.c"
printf 'int gone(void);\nint main(void) { return gone(); }\n' >"$tmp/usesgone.c"
if ! gcc -shared -fPIC -o "$tmp/libgone.so" "$tmp/gone.c" 2>"$tmp/gone.build" \
    || ! gcc -o "$tmp/usesgone" "$tmp/usesgone.c" -L"$tmp" -lgone 2>>"$tmp/gone.build"; then
    skip "gcc cannot build a shared library"
else
    rm -f "$tmp/libgone.so"
    run "$tmp/usesgone"
    [ "$status" -eq 127 ] && grep -q 'libgone.so' "$tmp/err" && grep -q 'dynamic loader could not load it' "$tmp/err" \
        && ! grep -qi 'static\|setuid' "$tmp/err"
    result $? "a program whose library is gone: exit 127 ($status), the loader's message, not 'static or setuid'" "$tmp/err"
fi
