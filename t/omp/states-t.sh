#!/bin/sh
# states-t.sh - deterministic STATE checks on real libomp: a monitor thread signals threads parked in each construct and holds the answers against it, clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
run_group states "$top_srcdir/t/omp/sampler.c" -lrt
tap_finish
