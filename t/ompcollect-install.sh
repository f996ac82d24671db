#!/bin/sh
# ompcollect-install.sh - an installed ompcollect finds its shim and agent relative to itself: installed with DESTDIR, or with prefix= overridden at install time only, it profiles an example from there.
# SPDX-License-Identifier: BSD-3-Clause
. "${top_srcdir:?}/t/ompcollect-lib.sh"

# The make that runs this test must not hand its jobserver or goals to ours.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
make=${MAKE:-make}
if ! command -v "$make" >/dev/null 2>&1; then
    echo "1..0 # SKIP no $make to run make install with"
    exit 0
fi
cat >"$tmp/dirs.mk" <<'EOF'
print-install-dirs:
	@echo "bindir=$(bindir)"
EOF
"$make" -s -C "$top_builddir" -f Makefile -f "$tmp/dirs.mk" print-install-dirs >"$tmp/dirs" 2>&1 || {
    echo "1..0 # SKIP cannot read the install directories from $top_builddir/Makefile"
    exit 0
}
# Only the assignments: make may first re-run configure and say so on the same streams.
grep -E '^[a-z]+=' "$tmp/dirs" >"$tmp/dirs.sh"
. "$tmp/dirs.sh"
echo "1..9"
n=0
# A failed test shows the last 20 lines of each file it names: make's errors come last.
result_lines="tail -n 20"
# profile NAME LAUNCHER ROOT: runs an example under the installed LAUNCHER; its shim and agent must come from under ROOT.
profile() {
    "$2" --runtime "$LIBOMP" -f json -o "$tmp/$1.json" "$top_builddir/examples/imbalance" 0.2 \
        >"$tmp/$1.out" 2>"$tmp/$1.err"
    status=$?
    [ $status -eq 0 ] && holds "$tmp/$1.json" \
        'r["collector"]["shim"].startswith("'"$3"'/") and r["collector"]["agent"].startswith("'"$3"'/") and totals["forks"] > 0'
}

# make install with another prefix= would rebuild anything out of date with
# that prefix compiled in: bring the build tree up to date first, as
# configured, so the installs only copy.
"$make" -C "$top_builddir" all >"$tmp/all.log" 2>&1
result $? "the build tree is up to date (make all)" "$tmp/all.log"

dest=$tmp/dest
"$make" -C "$top_builddir" install DESTDIR="$dest" >"$tmp/destdir.log" 2>&1
result $? "make install DESTDIR=... succeeds" "$tmp/destdir.log"
profile destdir "$dest$bindir/ompcollect" "$dest"
result $? "the DESTDIR copy of ompcollect profiles an example with the shim and agent installed beside it" \
    "$tmp/destdir.err" "$tmp/destdir.json"

prefix=$tmp/prefix
"$make" -C "$top_builddir" install prefix="$prefix" >"$tmp/prefix.log" 2>&1
result $? "make install prefix=... (not the configured prefix) succeeds" "$tmp/prefix.log"
profile prefix "$prefix/bin/ompcollect" "$prefix"
result $? "the prefix= copy of ompcollect profiles an example with the shim and agent under that prefix" \
    "$tmp/prefix.err" "$tmp/prefix.json"
! grep -q "$prefix" "$top_builddir/tools/ompcollect$EXEEXT"
result $? "the build tree's ompcollect was not rebuilt with that prefix"

# Moved after installation, it still finds them.
mv "$prefix" "$tmp/moved"
profile moved "$tmp/moved/bin/ompcollect" "$tmp/moved"
result $? "an installed tree moved elsewhere still works" "$tmp/moved.err" "$tmp/moved.json"
# The MPI library installed beside the agent is preloaded into an MPI program (MPI time measured).
hybrid=$top_builddir/examples/hybrid$EXEEXT
mpirun=${MPIRUN:-mpirun}
if [ -n "$(find "$tmp/moved" -name libompcollect-mpi.so)" ] && [ -x "$hybrid" ] \
    && command -v "$mpirun" >/dev/null 2>&1; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 "$mpirun" -np 1 \
        "$tmp/moved/bin/ompcollect" --runtime "$LIBOMP" -f json -o "$tmp/hybrid.json" "$hybrid" 0.1 \
        >"$tmp/hybrid.out" 2>"$tmp/hybrid.err"
    [ $? -eq 0 ] && holds "$tmp/hybrid.json" 'totals["mpi"]["measured"] and totals["mpi"]["calls"] > 0'
    result $? "the installed ompcollect preloads its MPI library into an MPI program" "$tmp/hybrid.err"
else
    skip "no MPI library installed, no examples/hybrid or no $mpirun"
fi
"$tmp/moved/bin/ompcollect" --bogus >/dev/null 2>"$tmp/bogus.err"
status=$?
[ $status -eq 125 ] && [ "$(cat "$tmp/bogus.err")" = "ompcollect: unknown option '--bogus' (try 'ompcollect --help')" ]
result $? "every message starts with 'ompcollect:', whatever path it was run by" "$tmp/bogus.err"
