# tap-lib.sh - shared helpers for the integration scripts: build workloads with each compiler, run them on the libomp under test, count TAP lines.
# Sourced, not run.  Expects top_srcdir, top_builddir, SHIM and LIBOMP from the test environment.

tests_run=0
tests_failed=0

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
build_workload() {
    cc=$1 source=$2 name=$3
    shift 3
    dir="$top_builddir/t/omp/bin-$cc"
    mkdir -p "$dir"
    out="$dir/$name"
    # shellcheck disable=SC2086
    if ! "$cc" -std=gnu11 -O1 -g -fopenmp ${SANITIZER_CFLAGS:-} -I"$top_srcdir/include" \
        -o "$out" "$top_srcdir/t/omp/$source" "$top_srcdir/t/omp/collector.c" "$@" -ldl -latomic \
        >"$out.build.log" 2>&1; then
        echo "# building $name with $cc failed:" >&2
        sed 's/^/# /' "$out.build.log" >&2
        return 1
    fi
    echo "$out"
}

# Runs a workload command with the runtime under test preloaded; relays its
# TAP lines, prefixed with a label, and adds one line for its exit status.
run_workload() {
    label=$1
    shift
    output=$(env ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        EXPECT_LIBOMP="$expected_runtime" timeout 120 "$@" 2>&1)
    status=$?
    echo "$output" | while IFS= read -r line; do
        case $line in
            "ok - "*) echo "ok - $label: ${line#ok - }" ;;
            "not ok - "*) echo "not ok - $label: ${line#not ok - }" ;;
            *) echo "# $label: $line" ;;
        esac
    done >"$top_builddir/t/omp/last-run.out"
    while IFS= read -r line; do
        case $line in
            "ok - "*) tap_result ok "${line#ok - }" ;;
            "not ok - "*) tap_result fail "${line#not ok - }" ;;
            *) echo "$line" ;;
        esac
    done <"$top_builddir/t/omp/last-run.out"
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
