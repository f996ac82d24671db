# tap-lib.sh - shared helpers for the integration scripts: build workloads with each compiler, run them on the libomp under test, count TAP lines.
# SPDX-License-Identifier: BSD-3-Clause
# Sourced, not run.  Expects top_srcdir, top_builddir, SHIM and LIBOMP from the test environment.

tests_run=0
tests_failed=0
# One per script: make -j runs the scripts side by side.
last_run="$top_builddir/t/omp/last-run-${0##*/}.out"

# Prints a result line and counts it.
tap_result() {
    tests_run=$((tests_run + 1))
    if [ "$1" = ok ]; then
        echo "ok $tests_run - $2"
    else
        tests_failed=$((tests_failed + 1))
        echo "not ok $tests_run - $2"
    fi
}

# Prints the plan, after the fact, and exits with the verdict.
tap_finish() {
    echo "1..$tests_run"
    [ "$tests_failed" -eq 0 ]
    exit $?
}

# The whole script cannot run here.
tap_skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}

# Compilers to build workloads with: WORKLOAD_CC if set, else clang and gcc where installed.
workload_compilers() {
    if [ -n "${WORKLOAD_CC:-}" ]; then
        echo "$WORKLOAD_CC"
        return
    fi
    for cc in clang gcc; do
        command -v "$cc" >/dev/null 2>&1 && printf '%s ' "$cc"
    done
}

# Builds $2 (a source in t/omp) with compiler $1 into the build tree; prints the binary's path.
# make check builds every workload of its scripts before they start
# (t/omp/build-workload, from t/omp/Makefile.inc), so no test pays for a
# compile: a binary made by this same command line (kept in NAME.cmd) and
# newer than every source and header it can include is used as it is.
build_workload() {
    cc=$1 source=$2 name=$3
    shift 3
    dir="$top_builddir/t/omp/bin-$cc"
    mkdir -p "$dir"
    out="$dir/$name"
    # shellcheck disable=SC2086
    set -- "$cc" -std=gnu11 -O1 -g -fopenmp ${SANITIZER_CFLAGS:-} -I"$top_srcdir/include" \
        -o "$out" "$top_srcdir/t/omp/$source" "$top_srcdir/t/omp/collector.c" "$@" -ldl -latomic
    if [ -x "$out" ] && [ "$(cat "$out.cmd" 2>/dev/null)" = "$*" ] &&
        [ -z "$(find "$top_srcdir/t/omp" "$top_srcdir/include" "$top_srcdir/compat" -type f \
            -name '*.[ch]' -newer "$out" 2>/dev/null | head -n 1)" ]; then
        echo "$out"
        return 0
    fi
    rm -f "$out.cmd"
    if ! "$@" >"$out.build.log" 2>&1; then
        echo "# building $name with $cc failed:" >&2
        sed 's/^/# /' "$out.build.log" >&2
        return 1
    fi
    echo "$*" >"$out.cmd"
    echo "$out"
}

# Runs a workload command with the runtime under test preloaded; relays its
# TAP lines, prefixed with a label, and adds one line for its exit status.
# WORKLOAD_TIMEOUT (seconds, default 120) bounds the run.
run_workload() {
    label=$1
    shift
    output=$(env ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        EXPECT_LIBOMP="$expected_runtime" timeout "${WORKLOAD_TIMEOUT:-120}" "$@" 2>&1)
    status=$?
    echo "$output" | while IFS= read -r line; do
        case $line in
            "ok - "*) echo "ok - $label: ${line#ok - }" ;;
            "not ok - "*) echo "not ok - $label: ${line#not ok - }" ;;
            *) echo "# $label: $line" ;;
        esac
    done >"$last_run"
    while IFS= read -r line; do
        case $line in
            "ok - "*) tap_result ok "${line#ok - }" ;;
            "not ok - "*) tap_result fail "${line#not ok - }" ;;
            *) echo "$line" ;;
        esac
    done <"$last_run"
    if [ "$status" -eq 0 ]; then
        tap_result ok "$label: exits 0"
    else
        tap_result fail "$label: exits 0 (exit status $status)"
    fi
}

# Requires a libomp to run on.
require_libomp() {
    if [ -z "${LIBOMP:-}" ] || [ ! -f "$LIBOMP" ]; then
        tap_skip_all "no LLVM libomp found (set LIBOMP)"
    fi
    expected_runtime=$(readlink -f "$LIBOMP")
}

# A directory holding libgomp.so.1 -> the libomp under test, one per runtime
# file, so gcc-built programs load libomp in GNU libgomp's place; prints it.
gomp_link_dir() {
    link_hash=$(printf '%s' "$expected_runtime" | cksum | cut -d ' ' -f 1)
    link_dir="$top_builddir/t/omp/gomp-link-$link_hash"
    if [ "$(readlink "$link_dir/libgomp.so.1" 2>/dev/null)" != "$expected_runtime" ]; then
        mkdir -p "$link_dir" || return 1
        # Made aside and renamed into place: a script running in parallel never finds it missing.
        ln -sf "$expected_runtime" "$link_dir/libgomp.so.1.$$" &&
            mv -f "$link_dir/libgomp.so.1.$$" "$link_dir/libgomp.so.1" || return 1
    fi
    echo "$link_dir"
}

# The ways compiler $1's programs reach the libomp under test: clang code
# asks for libomp.so.5, which preloading picks; gcc code asks for
# libgomp.so.1, which libomp replaces preloaded or as a link of that name.
runtime_routes() {
    if [ "$1" = gcc ]; then
        echo "preload gomp-link"
    else
        echo "preload"
    fi
}

# A label naming compiler $1 and route $2, for the TAP lines.
route_label() {
    case $1/$2 in
        gcc/preload) echo "gcc/LD_PRELOAD libomp" ;;
        gcc/gomp-link) echo "gcc/libgomp.so.1 link" ;;
        *) echo "$1" ;;
    esac
}

# Like run_workload, with the libomp under test reached by route $1 and the
# libraries in $3 (may be empty) preloaded; $2 is the label.  The link route
# also has the workload check that GNU libgomp stayed out of the process.
run_routed() {
    routed_via=$1 routed_label=$2 routed_preload=$3
    shift 3
    case $routed_via in
        preload)
            run_workload "$routed_label" env LD_PRELOAD="$LIBOMP${routed_preload:+ $routed_preload}" "$@"
            ;;
        gomp-link)
            if ! routed_dir=$(gomp_link_dir); then
                tap_result fail "$routed_label: a libgomp.so.1 link to $expected_runtime can be made"
                return
            fi
            run_workload "$routed_label" env LD_PRELOAD="$routed_preload" EXPECT_NO_GNU_LIBGOMP=1 \
                LD_LIBRARY_PATH="$routed_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
            ;;
        *)
            tap_result fail "$routed_label: runtime route '$routed_via' exists"
            ;;
    esac
}

# The usual group: builds t/omp/$1.c with every workload compiler (further
# arguments go to the link) and runs it by each route to libomp with the
# shim preloaded; gcc's programs get WORKLOAD_IS_GCC=1.
run_group() {
    group=$1
    shift
    for cc in $(workload_compilers); do
        binary=$(build_workload "$cc" "$group.c" "$group" "$@") || {
            tap_result fail "$cc: $group workload builds"
            continue
        }
        gcc_flag=
        [ "$cc" = gcc ] && gcc_flag=WORKLOAD_IS_GCC=1
        for route in $(runtime_routes "$cc"); do
            run_routed "$route" "$(route_label "$cc" "$route")" "$SHIM" $gcc_flag "$binary"
        done
    done
}

# A sanitizer report is symbolized by llvm-symbolizer, run as a child of
# the process; a sanitized shim in LD_PRELOAD would be preloaded into it
# too and kill it.  A static front end that drops LD_PRELOAD first is built
# into the build tree, and the sanitizers' options point at it.  Nothing
# changes when the build is not sanitized or either tool is missing.
use_sanitizer_symbolizer() {
    [ -n "${SANITIZER_CFLAGS:-}" ] || return 0
    symbolizer=$(command -v llvm-symbolizer 2>/dev/null) || return 0
    front="$top_builddir/t/omp/bin-tools/llvm-symbolizer"
    if [ ! -x "$front" ]; then
        mkdir -p "${front%/*}" &&
            "${CC:-cc}" -static -O1 -DSYMBOLIZER="\"$symbolizer\"" -o "$front.$$" \
                "$top_srcdir/t/omp/symbolizer-front.c" >/dev/null 2>&1 &&
            mv -f "$front.$$" "$front" || { rm -f "$front.$$"; return 0; }
    fi
    ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}external_symbolizer_path=$front"
    TSAN_OPTIONS="${TSAN_OPTIONS:-}${TSAN_OPTIONS:+:}external_symbolizer_path=$front"
    UBSAN_OPTIONS="${UBSAN_OPTIONS:-}${UBSAN_OPTIONS:+:}external_symbolizer_path=$front"
    export ASAN_OPTIONS TSAN_OPTIONS UBSAN_OPTIONS
}
