# ompcollect-lib.sh - what the ompcollect tests share (sourced): skipping, a scratch directory, sanitizer builds, TAP lines and report queries.
# SPDX-License-Identifier: BSD-3-Clause
: "${top_builddir:?}" "${top_srcdir:?}"
oc=$top_builddir/tools/ompcollect
query=$top_srcdir/t/ompcollect-query.py

if [ -z "$LIBOMP" ]; then
    echo "1..0 # SKIP LIBOMP is empty: no LLVM libomp to run the programs on"
    exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "1..0 # SKIP python3 is needed to read the reports"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ompcollect-test.XXXXXX") || exit 1
# KEEP_TMP=1 keeps the scratch directory, to read a failure's reports afterwards.
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
unset OMP_TOOL OMPCOLLECT_SHIM OMPCOLLECT_COLLECTOR OMPCOLLECT_RUNTIME OMP_NUM_THREADS
# OMPCOLLECT_TEST_THREADS=N: the teams whose size no test fixes get N threads, as on
# an N-core machine (README, "Machines the suite runs on"); else the machine's.
if [ -n "${OMPCOLLECT_TEST_THREADS:-}" ]; then
    OMP_NUM_THREADS=$OMPCOLLECT_TEST_THREADS
    export OMP_NUM_THREADS
fi

# A shim built with --enable-sanitizers needs the sanitizer runtimes loaded
# ahead of it in every process ompcollect starts; the programs themselves
# are not instrumented, so only the order check and leak reports are off.
# The preloaded runtime's allocator also serves ompcollect itself, and a
# failed allocation must return NULL there as it does without ASan: merge
# --trace caps its address space so that libotf2's huge requests on a
# damaged archive fail and are reported (otf2_merge.c, cap_memory).
sanitizers=
# gcc's sanitized shim names its runtimes (libasan, libubsan); clang's names
# none and expects the executable to carry them, so an uninstrumented
# program needs clang's shared ASan runtime, which holds UBSan's handlers too.
for needed in $(readelf -d "${SHIM:-}" 2>/dev/null | sed -n 's/.*NEEDED.*\[\(lib[a-z]*san\.so[.0-9]*\)\].*/\1/p'); do
    path=$(${CC:-cc} -print-file-name="$needed" 2>/dev/null)
    [ -f "$path" ] && sanitizers="$sanitizers${sanitizers:+:}$path"
done
# (nm costs a tenth of a CPU-second in each of some 35 scripts: only a shim
# that holds the name at all is asked.)
if [ -z "$sanitizers" ] && grep -q __asan_init "${SHIM:-}" 2>/dev/null \
    && nm -D --undefined-only "${SHIM:-}" 2>/dev/null | grep -q ' __asan_init'; then
    path=$(${CC:-cc} -print-file-name="libclang_rt.asan-$(uname -m).so" 2>/dev/null)
    if [ ! -f "$path" ]; then
        echo "1..0 # SKIP the shim is built with ASan but ${CC:-cc} has no shared ASan runtime to preload"
        exit 0
    fi
    sanitizers=$path
fi
if [ -n "$sanitizers" ]; then
    LD_PRELOAD=$sanitizers${LD_PRELOAD:+:$LD_PRELOAD}
    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
    export LD_PRELOAD ASAN_OPTIONS
fi

# mpi_launcher WHAT: the whole script skipped when there is no MPI launcher
# (MPIRUN or mpirun) to run WHAT with, else mpi_flags.
mpi_launcher() {
    mpirun=${MPIRUN:-mpirun}
    if ! command -v "$mpirun" >/dev/null 2>&1; then
        echo "1..0 # SKIP no MPI launcher ($mpirun) to run $1 with"
        exit 0
    fi
    mpi_flags
}

# mpi_flags: mpirun (MPIRUN or mpirun), its flags (Open MPI: running as root
# allowed, ranks on fewer cores than asked) and limit, a timeout so that a
# hung MPI job cannot hang the suite.
mpi_flags() {
    mpirun=${MPIRUN:-mpirun}
    flags=
    if "$mpirun" --version 2>&1 | grep -q 'Open MPI'; then
        flags=--oversubscribe
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    fi
    limit=
    command -v timeout >/dev/null 2>&1 && limit="timeout 300"
}

# result and skip, the TAP lines (t/tap.sh).
. "$top_srcdir/t/tap.sh"
# test_program, the programs built once for several scripts (t/test-programs.sh).
. "$top_srcdir/t/test-programs.sh"

# ok VALUE DESCRIPTION [FILE]: one TAP line, passing when VALUE is True; on failure VALUE and FILE's first lines become diagnostics.
ok() {
    n=$((n + 1))
    if [ "$1" = True ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        echo "# got: $1"
        [ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/# /' "$3" | head -n 20
    fi
}

# check NAME DESCRIPTION EXPRESSION: queues a test of the JSON report
# $tmp/NAME.json, a Python expression over t/ompcollect-query.py's names;
# checked NAME [DIAGNOSTIC] evaluates NAME's queue in one python3 and prints a
# TAP line each, in order.  A failed test shows its expression's value,
# DIAGNOSTIC's when given (an expression over the report) and the first lines
# of the run's stderr ($tmp/NAME.err).  Scripts with other checks define their own.
tab=$(printf '\t')
check() {
    printf '%s\t%s\n' "$2" "$3" >>"$tmp/$1.checks"
}
checked() {
    if [ -s "$tmp/$1.json" ]; then
        python3 "$query" "$tmp/$1.json" --each "$tmp/$1.checks" >"$tmp/$1.values" 2>&1
    else
        : >"$tmp/$1.values"
    fi
    while IFS="$tab" read -r description expression; do
        n=$((n + 1))
        if [ ! -s "$tmp/$1.json" ]; then
            echo "not ok $n - $1: $description # no report"
            sed 's/^/# stderr: /' "$tmp/$1.err" 2>/dev/null | head -n 10
            continue
        fi
        IFS= read -r value <&3
        if [ "$value" = True ]; then
            echo "ok $n - $1: $description"
        else
            echo "not ok $n - $1: $description"
            echo "# expression: $expression -> $value"
            [ -n "${2:-}" ] && python3 "$query" "$tmp/$1.json" "$2" 2>&1 | sed 's/^/# /'
            sed 's/^/# stderr: /' "$tmp/$1.err" 2>/dev/null | head -n 10
        fi
    done <"$tmp/$1.checks" 3<"$tmp/$1.values"
    rm -f "$tmp/$1.checks"
}

# holds REPORT EXPRESSION: true when the Python expression over a JSON report (see t/ompcollect-query.py) is true.
holds() {
    [ "$(python3 "$query" "$1" "$2" 2>&1)" = True ]
}

# run ARGUMENT...: ompcollect with stdout and stderr in $tmp/out and $tmp/err; the exit status lands in $status.
run() {
    "$oc" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}

# line_of MARKER: the line of the marker comment "@MARKER " in $source (a pragma's or a call's line: what codeptr maps to).
line_of() {
    grep -n "@$1 " "$source" | cut -d: -f1
}
