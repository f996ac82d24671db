#!/bin/bash
# regen.sh - rewrites t/golden/expected/ from the saved runs (and, with --record, records the runs again); see README.
# SPDX-License-Identifier: BSD-3-Clause
set -euo pipefail
build=$(cd "${1:?usage: regen.sh BUILDDIR [--record]}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ompcollect=$build/tools/ompcollect
if [ "${2:-}" = --record ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cd "$work"
    clang -fopenmp -g -O1 -fno-omit-frame-pointer -o tasks "$top/t/ompcollect-tasks.c"
    clang -fopenmp -g -O2 -o serial "$top/t/ompcollect-serial.c"
    # Not PIE: with --symfs=/nonexistent the constructs are known by address alone, alike in every run.
    clang -fopenmp -g -O2 -no-pie -o scaling "$top/t/ompcollect-scaling.c"
    # DWARF 4 and frame pointers, as t/test-programs.sh builds it for t/ompcollect-gprofng.sh.
    clang -fopenmp -g -gdwarf-4 -O1 -fno-omit-frame-pointer -o gprofng "$top/t/ompcollect-gprofng.c"
    run() { name=$1; shift; "$ompcollect" --save="$name.ses" -o /dev/null "$@" >/dev/null 2>&1 || true; gzip -9 -n -c "$name.ses" >"$here/$name.ses.gz"; }
    run solver -i 1ms --stacks --trace="$work/otf2" --trace-json=/dev/null "$build/examples/solver"
    run imbalance "$build/examples/imbalance"
    run tasks -i 1ms --timeline=/dev/null ./tasks
    run tasktrace -i 1ms --trace="$work/otf2-tasks" --trace-json=/dev/null ./tasks 20 14 6 1
    run nested -i 1ms -e all --trace-json=/dev/null "$build/examples/nested"
    run fork2 -i 1ms "$build/t/ompcollect-jobs" fork2
    run segv -i 1ms --timeline=/dev/null "$build/t/ompcollect-jobs" segv
    run cut -i 1ms --trace-buffer=1K --trace="$work/cut" --trace-json=/dev/null --timeline=/dev/null \
        "$build/examples/locks" 0.3
    run serial -i 1ms --trace="$work/serial" --trace-json=/dev/null --timeline=/dev/null ./serial 0.1
    run gprofng -i 1ms --gprofng="$work/gprofng.er" ./gprofng 0.3
    # Rank 0 of two (record version 8: MPI call sites); it waits in MPI_Barrier while rank 1 computes.
    if command -v mpirun >/dev/null 2>&1 && [ -x "$build/t/ompcollect-mpi-wait" ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe "$ompcollect" -i 1ms \
            --save="mpi.%r.ses" --trace="$work/mpi.%r" --trace-json="mpi.%r.json" --timeline="mpi.%r.svg" \
            -o "report.%r.txt" "$build/t/ompcollect-mpi-wait" 0.2 >/dev/null 2>&1 || true
        gzip -9 -n -c mpi.0.ses >"$here/mpi.ses.gz"
    fi
    for threads in 1 2 4; do
        OMP_NUM_THREADS=$threads run scaling$threads -i 1ms ./scaling constructs 20 4
    done
fi
rm -rf "$here/expected"
grep -v '^#' "$here/MANIFEST" | while read -r name rest; do
    kinds=${rest%%|*}
    gunzip -c "$here/$name.ses.gz" >"$build/golden-$name.ses"
    # shellcheck disable=SC2086
    "$here/outputs.sh" "$ompcollect" "$build/golden-$name.ses" "$here/expected/$name" $kinds -- --symfs=/nonexistent \
        2>/dev/null
    rm -f "$build/golden-$name.ses"
done
