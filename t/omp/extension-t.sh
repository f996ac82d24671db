#!/bin/sh
# extension-t.sh - ompcollector's own requests (SAMPLE, TASK_FRAMES) on real libomp: code addresses resolve to the program's functions and objects, task frames order on the stack; clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
# -rdynamic: the workload names its own functions and objects with dladdr.
run_group extension -rdynamic
tap_finish
