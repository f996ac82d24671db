#!/bin/sh
# events-t.sh - a recording collector checks per-thread event sequences for every construct on real libomp, clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
run_group events
tap_finish
