/* compare_cmd.h - the `ompcollect merge` and `ompcollect diff` commands, beside the launcher's own, and the writing of their views (scaling's too). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_COMPARE_CMD_H
#define OMPCOLLECT_COMPARE_CMD_H 1

/* ompcollect merge [-f text|csv|json] [-o FILE] REPORT.json... | --trace=DIR ARCHIVE...; exit 0, 1 on unusable input, 2 on usage errors. */
int ompc_merge_main(int argc, char **argv);

/* ompcollect diff [-f text|csv|json] [-o FILE] A.json B.json; exit 0, 1 on unusable input, 2 on usage errors. */
int ompc_diff_main(int argc, char **argv);

struct ompc_view;

/*
 * Writes `view` with compare's writer `name` into memory first, so that a
 * refusal found while writing leaves no partial file, then to `output`
 * (NULL: stdout); 0, or 1 after a message prefixed with COMMAND.
 */
int ompc_compare_write_view(const char *command, const char *name, const struct ompc_view *view, const char *output);

#endif /* OMPCOLLECT_COMPARE_CMD_H */
