/* scaling_cmd.h - the `ompcollect scaling` command, beside report, merge and diff. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SCALING_CMD_H
#define OMPCOLLECT_SCALING_CMD_H 1

/* ompcollect scaling [OPTION]... PROGRAM [ARGS] | --reports REPORT.json...; exit 0, 1 on failed runs or unusable reports, 2 on usage errors. */
int ompc_scaling_main(int argc, char **argv);

#endif /* OMPCOLLECT_SCALING_CMD_H */
