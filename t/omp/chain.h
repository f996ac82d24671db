/* chain.h - an OMPT tool of the workload's own in front of the shim, for the workloads that watch what libomp and the shim say to each other. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_TEST_CHAIN_H
#define OMPCOLLECTOR_TEST_CHAIN_H 1

#include "ompt-decls.h"

/*
 * The workload's part: called with libomp's lookup function when libomp
 * initializes the tool, before the shim is; returns the lookup function
 * the shim gets instead (`runtime`, or one that wraps it).
 */
ompt_function_lookup_t chain_shim_lookup(ompt_function_lookup_t runtime);

/* Whether the workload's tool stands in front of the shim: 0 when the runtime loaded the shim itself (OMP_TOOL_LIBRARIES) and no shim was there to chain to. */
int chain_active(void);

#endif
