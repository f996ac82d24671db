/* cli.h - ompcollect's command line: --help, the options into struct run, and the checks between them and on the output places before anything runs. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_CLI_H
#define OMPCOLLECT_CLI_H 1

#include <stdint.h>

#include "run.h"

/* What the command line chose beyond the run itself. */
struct cli {
    uint32_t event_mask;
    int events_given, stacks_folded, format_given;
    const char *runtime;
    int replay; /* `ompcollect report`: only the options that choose outputs */
};

/* The default sampling interval: the kernel's tick when it lies in 1-10 ms, else 1 ms. */
long long default_interval_ns(void);

/* Parses the command line up to the program (or the saved run); returns the index of its first word. */
int parse_options(int argc, char **argv, struct run *run, struct cli *cli);

/* The checks between options, and the output places, before anything runs; refusals die. */
void check_options(struct run *run, struct cli *cli);

/* `ompcollect report`: refuses outputs a saved run holds nothing for. */
void check_recorded(const struct run *run, const char *file);

#endif /* OMPCOLLECT_CLI_H */
