#!/bin/sh
# sampling-t.sh - STATE and CURRENT_PRID from signal handlers at 10 kHz per thread over a workload that sits in each state, clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
run_group sampling "$top_srcdir/t/omp/sampler.c" -lrt
tap_finish
