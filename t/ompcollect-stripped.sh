#!/bin/sh
# ompcollect-stripped.sh - stripped code gets the best name there is: DWARF lines from a debug file found by .gnu_debuglink, by build id (--debuginfo-path, and under --symfs), else the .dynsym function, never an export the address lies past, else module+offset; the report's Symbols section and JSON modules say which modules had only .dynsym or no symbols.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"
library_source=$top_srcdir/t/ompcollect-stripped-lib.c
program_source=$top_srcdir/t/ompcollect-stripped.c
critical=$(grep -n '@CRITICAL ' "$library_source" | cut -d: -f1)
parallel=$(grep -n '@PARALLEL ' "$library_source" | cut -d: -f1)
# Each of the library's threads spends this long in the critical: the other queues for it.
seconds=0.1
plan=18
echo "1..$plan"
n=0

for tool in gcc strip objcopy readelf nm; do
    if ! command -v $tool >/dev/null 2>&1; then
        skip "$tool is not installed" $plan
        exit 0
    fi
done
# -fno-toplevel-reorder keeps the library's functions and its assembly symbol in source order.
mkdir -p "$tmp/full" &&
    gcc -fopenmp -g -O2 -fno-toplevel-reorder -fPIC -shared -Wl,--build-id -o "$tmp/full/libstriptest.so" \
        "$library_source" >"$tmp/build.err" 2>&1 &&
    gcc -fopenmp -g -O2 -Wl,--build-id -o "$tmp/full/prog" "$program_source" -L"$tmp/full" -lstriptest \
        -Wl,-rpath,'$ORIGIN' >>"$tmp/build.err" 2>&1
if [ $? -ne 0 ]; then
    skip "gcc cannot build the OpenMP library and program" $plan
    exit 0
fi
build_id=$(readelf -n "$tmp/full/libstriptest.so" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
id_dir=$(echo "$build_id" | cut -c1-2) id_file=$(echo "$build_id" | cut -c3-)

# The variants: a, every file stripped (the library keeps .dynsym); b, the library
# stripped with a .gnu_debuglink to its debug file beside it; c, the library
# stripped and its debug file under DIR/.build-id/ as /usr/lib/debug holds them.
for v in a b c; do
    mkdir -p "$tmp/$v" && cp "$tmp/full/prog" "$tmp/full/libstriptest.so" "$tmp/$v/" || exit 99
done
made=0
strip --strip-all "$tmp/a/libstriptest.so" "$tmp/a/prog" || made=1
objcopy --only-keep-debug "$tmp/b/libstriptest.so" "$tmp/b/libstriptest.so.debug" &&
    strip --strip-all "$tmp/b/libstriptest.so" &&
    (cd "$tmp/b" && objcopy --add-gnu-debuglink=libstriptest.so.debug libstriptest.so) || made=1
mkdir -p "$tmp/c/debug/.build-id/$id_dir" &&
    objcopy --only-keep-debug "$tmp/c/libstriptest.so" "$tmp/c/debug/.build-id/$id_dir/$id_file.debug" &&
    strip --strip-all "$tmp/c/libstriptest.so" || made=1
[ -n "$build_id" ] || made=1
result $made "the three stripped variants are made (build id $build_id)" "$tmp/build.err"

# What makes variant a's test bite: the static function lies past the sizeless export, which .dynsym keeps.
nm -S "$tmp/full/libstriptest.so" >"$tmp/nm" 2>&1
marker=$(awk '$NF == "strip_lib_marker" { print $1 }' "$tmp/nm")
hidden=$(awk '$NF == "hidden_step" { print $1 }' "$tmp/nm")
[ -n "$marker" ] && [ -n "$hidden" ] && [ "$((0x$marker))" -le "$((0x$hidden))" ] &&
    nm -D --defined-only "$tmp/a/libstriptest.so" | grep -q ' strip_lib_marker$'
result $? "the static function with the critical (0x$hidden) lies after the exported symbol without size (0x$marker)" "$tmp/nm"

# report NAME DIR [OPTION...]: runs variant DIR's program into $tmp/NAME.json and $tmp/NAME.txt (one run, --save'd).
report() {
    name=$1 dir=$2
    shift 2
    "$oc" --runtime "$LIBOMP" -i 1ms --save="$tmp/$name.ses" -f json -o "$tmp/$name.json" "$@" \
        "$tmp/$dir/prog" $seconds >"$tmp/$name.out" 2>"$tmp/$name.err" &&
        "$oc" report -o "$tmp/$name.txt" "$@" "$tmp/$name.ses" 2>>"$tmp/$name.err"
    status=$?
    sed -n '/^Symbols/,/^$/p' "$tmp/$name.txt" >"$tmp/$name.symbols" 2>/dev/null
    result "$([ $status -eq 0 ] && grep -q '^stripped: 2 threads' "$tmp/$name.out" && echo 0 || echo 1)" \
        "$name: the program ran under ompcollect and its saved run was reported" "$tmp/$name.err"
}

# expect NAME DESCRIPTION EXPRESSION: one TAP line, an expression over report NAME (t/ompcollect-query.py's names),
# with crit (the critical's wait location), lib_construct (the library's parallel construct) and module(BASE) (its modules entry).
expect() {
    value=$(python3 "$query" "$tmp/$1.json" "(lambda crit, lib_construct, module: $3)(
        [w['location'] for w in r['wait_locations'] if w['state'] == 'CTWT'][0],
        [c['location'] for c in r['constructs'] if (c['location']['module'] or '').endswith('/libstriptest.so')][0],
        lambda base: [m for m in r['modules'] if m['path'].endswith('/' + base)][0])" 2>&1)
    ok "$value" "$1: $2"
    if [ "$value" != True ]; then
        python3 "$query" "$tmp/$1.json" "[(w['state'], w['location']) for w in r['wait_locations']]" 2>&1 | sed 's/^/# /'
        sed 's/^/# text: /' "$tmp/$1.symbols"
    fi
}

report a a
expect a "the library's parallel construct is named by its .dynsym function (strip_lib_work+offset)" \
    "lib_construct['kind'] == 'symbol' and lib_construct['function'] == 'strip_lib_work' and lib_construct['function_offset'] > 0"
expect a "the critical in the static function is module+offset, not the export before it (strip_lib_marker)" \
    "crit['kind'] == 'module' and crit['function'] is None and crit['module'].endswith('/libstriptest.so')"
expect a "JSON modules: the library had only .dynsym, the stripped program no symbols" \
    "module('libstriptest.so')['symbols'] == 'dynsym' and module('prog')['symbols'] == 'none' and module('libstriptest.so')['debug_file'] is None"
grep -Eq "^  dynsym only +$tmp/a/libstriptest.so\$" "$tmp/a.symbols" &&
    grep -Eq "^  no symbols +$tmp/a/prog\$" "$tmp/a.symbols" &&
    ! grep -q 'libomp\|libompcollect' "$tmp/a.symbols"
result $? "a: the text report's Symbols section names the library (dynsym only) and the program (no symbols), not the runtime" \
    "$tmp/a.symbols" "$tmp/a.txt"

report b b
expect b "the critical is named by its static function and line from the .gnu_debuglink file (hidden_step:$critical)" \
    "crit['kind'] == 'line' and crit['function'] == 'hidden_step' and crit['line'] == $critical"
expect b "the library's construct gets its line from it too (strip_lib_work:$parallel)" \
    "lib_construct['kind'] == 'line' and lib_construct['function'] == 'strip_lib_work' and lib_construct['line'] == $parallel"
expect b "JSON modules: the library's names came from DWARF in libstriptest.so.debug" \
    "module('libstriptest.so')['symbols'] == 'dwarf' and module('libstriptest.so')['debug_file'].endswith('/b/libstriptest.so.debug')"
# A sanitized build preloads its runtime (.dynsym only), where a sample may land: the harness's, not the program's
# (CI's ASan stage once listed libclang_rt.asan here); any other module listed fails.
! grep -E '^  (dynsym only|no symbols) ' "$tmp/b.symbols" | grep -Evq '/lib(clang_rt\.[a-z]+san|asan|ubsan|tsan)[-.a-z0-9_]*\.so[.0-9]*$'
result $? "b: the text report's Symbols section lists no module (every module the report names has symbols)" "$tmp/b.symbols"

report c-default c
expect c-default "the build-id debug file outside the debuginfo path is not found: .dynsym names, the critical module+offset" \
    "lib_construct['kind'] == 'symbol' and crit['kind'] == 'module' and module('libstriptest.so')['symbols'] == 'dynsym'"
report c c --debuginfo-path=":.debug:$tmp/c/debug"
expect c "--debuginfo-path: the critical is named from the build-id debug file (hidden_step:$critical)" \
    "crit['kind'] == 'line' and crit['function'] == 'hidden_step' and crit['line'] == $critical and module('libstriptest.so')['debug_file'] == '$tmp/c/debug/.build-id/$id_dir/$id_file.debug'"

# --symfs: the modules and their build-id debug files as another machine would hold them, under one directory.
symfs=$tmp/symfs
mkdir -p "$symfs$tmp/c" "$symfs/usr/lib/debug/.build-id/$id_dir" &&
    cp "$tmp/c/prog" "$tmp/c/libstriptest.so" "$symfs$tmp/c/" &&
    cp "$tmp/c/debug/.build-id/$id_dir/$id_file.debug" "$symfs/usr/lib/debug/.build-id/$id_dir/" || exit 99
"$oc" report -f json -o "$tmp/c-symfs.json" --symfs="$symfs" "$tmp/c-default.ses" 2>"$tmp/c-symfs.err"
result $? "report --symfs of variant c's saved run" "$tmp/c-symfs.err"
expect c-symfs "--symfs: the build-id debug file under DIR/usr/lib/debug names the critical (hidden_step:$critical)" \
    "crit['kind'] == 'line' and crit['function'] == 'hidden_step' and crit['line'] == $critical"
