#!/bin/sh
# tasks-t.sh - the OpenUH task extension (events 23..35, TASK_ID, TASK_PID) on real libomp: a TAU-style client over every kind of task, and a sampler over task programs (WORK inside task waits and in teams of one, the wait for a long task), clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
run_group tasks
run_group task-sampling "$top_srcdir/t/omp/sampler.c" -lrt
tap_finish
