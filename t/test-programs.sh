#!/bin/sh
# test-programs.sh - the programs the ompcollect scripts build with clang and GCC (examples/solver.c with and without -g, t/ompcollect-stacks.c, t/ompcollect-tasks.c, t/ompcollect-tasksites.c, t/ompcollect-taskgraph.c, t/ompcollect-dwarf.c, t/ompcollect-pragma.c, t/ompcollect-copies.c, t/ompcollect-serial.c, t/ompcollect-sites.c, t/ompcollect-gprofng.c (with and without frame pointers), and t/ompcollect-cxx.cc with their C++ compilers), built into t/bin once: by make check before the tests start, else by the first script that needs one.
# SPDX-License-Identifier: BSD-3-Clause
# Sourced by t/ompcollect-lib.sh for test_program; run as
# `test-programs.sh CC...` (tools/Makefile.inc) it builds every program for
# each compiler CC that is installed, and only says what did not build: the
# script that needs it builds it again and says why in its test.

# test_program NAME: the path of program NAME (solver-CC, solver-CC-nodebug,
# stacks-CC, tasks-CC, tasksites-CC, taskgraph-CC, dwarf-CC, pragma-CC, copies-CC, serial-CC, sites-CC, gprofng-CC, or
# cxx-CXX and cxx-CXX-fp for a C++ compiler CXX), built when it is missing, was made by another
# command line (kept in NAME.cmd) or is older than its sources.
test_program() {
    tp_name=$1 tp_libs=
    case $tp_name in
    solver-*-nodebug)
        tp_cc=${tp_name#solver-}
        set -- "$top_srcdir/examples/solver.c" "${tp_cc%-nodebug}" -fopenmp -O2 -I"$top_srcdir/examples"
        ;;
    solver-*) set -- "$top_srcdir/examples/solver.c" "${tp_name#solver-}" -fopenmp -g -O2 -I"$top_srcdir/examples" ;;
    stacks-*) set -- "$top_srcdir/t/ompcollect-stacks.c" "${tp_name#stacks-}" -fopenmp -g -O0 -fno-omit-frame-pointer ;;
    tasks-*) set -- "$top_srcdir/t/ompcollect-tasks.c" "${tp_name#tasks-}" -fopenmp -O2 ;;
    tasksites-*) set -- "$top_srcdir/t/ompcollect-tasksites.c" "${tp_name#tasksites-}" -fopenmp -g -O2 ;;
    taskgraph-*) set -- "$top_srcdir/t/ompcollect-taskgraph.c" "${tp_name#taskgraph-}" -fopenmp -g -O2 ;;
    # -O2 without -fno-omit-frame-pointer: x86-64 compilers keep no frame pointers.
    dwarf-*) set -- "$top_srcdir/t/ompcollect-dwarf.c" "${tp_name#dwarf-}" -O2 -g -fopenmp; tp_libs=-lm ;;
    pragma-*) set -- "$top_srcdir/t/ompcollect-pragma.c" "${tp_name#pragma-}" -fopenmp -g -O2 ;;
    copies-*) set -- "$top_srcdir/t/ompcollect-copies.c" "${tp_name#copies-}" -fopenmp -g -O2 ;;
    serial-*) set -- "$top_srcdir/t/ompcollect-serial.c" "${tp_name#serial-}" -fopenmp -g -O2 ;;
    sites-*) set -- "$top_srcdir/t/ompcollect-sites.c" "${tp_name#sites-}" -fopenmp -g -O2 ;;
    # DWARF 4: gprofng 2.40 reads no line of DWARF 5; frame pointers, so the user-model stacks reach main
    # (the -nofp build has none: x86-64 compilers keep none at -O1, and --stacks-unwind=dwarf unwinds it by CFI).
    gprofng-*-nofp) tp_cc=${tp_name#gprofng-}; set -- "$top_srcdir/t/ompcollect-gprofng.c" "${tp_cc%-nofp}" -fopenmp -g -gdwarf-4 -O1 -fomit-frame-pointer ;;
    gprofng-*) set -- "$top_srcdir/t/ompcollect-gprofng.c" "${tp_name#gprofng-}" -fopenmp -g -gdwarf-4 -O1 -fno-omit-frame-pointer ;;
    scaling-*) set -- "$top_srcdir/t/ompcollect-scaling.c" "${tp_name#scaling-}" -fopenmp -g -O2 ;;
    # The stacks' build keeps frame pointers: what is checked is the inlined frame, not unwinding without them.
    cxx-*-fp) tp_cc=${tp_name#cxx-}; set -- "$top_srcdir/t/ompcollect-cxx.cc" "${tp_cc%-fp}" -fopenmp -g -O2 -fno-omit-frame-pointer ;;
    cxx-*) set -- "$top_srcdir/t/ompcollect-cxx.cc" "${tp_name#cxx-}" -fopenmp -g -O2 ;;
    *)
        echo "test_program: no program $tp_name" >&2
        return 2
        ;;
    esac
    tp_source=$1
    shift
    tp_program=$top_builddir/t/bin/$tp_name
    # shellcheck disable=SC2086 # tp_libs is words
    set -- "$@" -o "$tp_program" "$tp_source" $tp_libs
    if [ -x "$tp_program" ] && [ "$(cat "$tp_program.cmd" 2>/dev/null)" = "$*" ] &&
        [ -z "$(find "$tp_source" "$top_srcdir/examples" -type f \( -name '*.[ch]' -o -name '*.cc' \) -newer "$tp_program" 2>/dev/null | head -n 1)" ]; then
        echo "$tp_program"
        return 0
    fi
    mkdir -p "$top_builddir/t/bin" && rm -f "$tp_program.cmd" || return 1
    "$@" >"$tp_program.log" 2>&1 || {
        cat "$tp_program.log" >&2
        return 1
    }
    echo "$*" >"$tp_program.cmd"
    echo "$tp_program"
}

case $0 in
*test-programs.sh)
    : "${top_srcdir:?}" "${top_builddir:?}"
    for cc in "$@"; do
        command -v "$cc" >/dev/null 2>&1 || continue
        names="solver-$cc solver-$cc-nodebug stacks-$cc tasks-$cc tasksites-$cc taskgraph-$cc dwarf-$cc pragma-$cc copies-$cc serial-$cc sites-$cc gprofng-$cc gprofng-$cc-nofp scaling-$cc"
        # The C++ compiler of the same family: clang++ beside clang, g++ beside gcc.
        case $cc in gcc) cxx=g++ ;; *) cxx=$cc++ ;; esac
        command -v "$cxx" >/dev/null 2>&1 && names="$names cxx-$cxx cxx-$cxx-fp"
        for name in $names; do
            test_program "$name" >/dev/null 2>&1 || echo "test-programs.sh: $name did not build (its test will say why)" >&2
        done
    done
    ;;
esac
