/* ompcollect-stripped.c - the program of t/ompcollect-stripped.sh: runs the library's region (t/ompcollect-stripped-lib.c), whose threads queue at a critical for the seconds given, then one of its own. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>

void strip_lib_work(double seconds);

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.1;
    int threads = 0;
    strip_lib_work(seconds);
    /* A construct in the program itself, named module+offset once it is stripped. */
#pragma omp parallel num_threads(2) reduction(+ : threads)
    threads++;
    printf("stripped: %d threads\n", threads);
    return 0;
}
