#!/bin/sh
# team-states-t.sh - STATE next to the runtime's own ompt_get_state in the same samples: inner teams and other root threads' teams wait in IBAR, a reduction's combine reads REDUC; clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
# -rdynamic: the workload's own ompt_start_tool must be the one libomp finds.
run_group team-states "$top_srcdir/t/omp/sampler.c" "$top_srcdir/t/omp/chain.c" -rdynamic -I"$top_srcdir/compat" -lrt -lpthread
tap_finish
