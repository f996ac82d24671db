/* ompcollect-stripped-lib.c - a shared library for t/ompcollect-stripped.sh: an exported function forks a region whose body calls a static function holding a critical, laid out after an export without a size, so that .dynsym alone would name the critical wrongly. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>

#define KEEP __attribute__((noinline, used))

volatile double strip_lib_sink;

/* Busy for `seconds` of wall-clock time: the work inside the critical, exported. */
KEEP void strip_lib_spin(double seconds)
{
    double end = omp_get_wtime() + seconds;
    double x = 0;
    while (omp_get_wtime() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 0.5;
    strip_lib_sink = x;
}

/*
 * An exported symbol without a size, as hand-written assembly often has:
 * libdwfl lets it run up to the next symbol, and with only .dynsym that
 * is past the static function below (the library is built with
 * -fno-toplevel-reorder, which keeps this order).
 */
__asm__(".text\n.globl strip_lib_marker\n.type strip_lib_marker, %function\nstrip_lib_marker:\n");

/* Static: only .symtab or DWARF names it; the critical's wait is here. */
KEEP static void hidden_step(double seconds)
{
#pragma omp critical /* @CRITICAL */
    strip_lib_spin(seconds);
}

/* Exported: the parallel construct. */
KEEP void strip_lib_work(double seconds)
{
#pragma omp parallel num_threads(2) /* @PARALLEL */
    hidden_step(seconds);
}
