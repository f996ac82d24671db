/* compare_cmd.h - the `ompcollect merge` and `ompcollect diff` commands, beside the launcher's own. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_COMPARE_CMD_H
#define OMPCOLLECT_COMPARE_CMD_H 1

/* ompcollect merge [-f text|csv|json] [-o FILE] REPORT.json... | --trace=DIR ARCHIVE...; exit 0, 1 on unusable input, 2 on usage errors. */
int ompc_merge_main(int argc, char **argv);

/* ompcollect diff [-f text|csv|json] [-o FILE] A.json B.json; exit 0, 1 on unusable input, 2 on usage errors. */
int ompc_diff_main(int argc, char **argv);

#endif /* OMPCOLLECT_COMPARE_CMD_H */
