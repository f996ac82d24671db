/* procstat.c - reads /proc/PID/stat: the process's state, parent and start time. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "procstat.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ompc_proc_stat(long pid, struct ompc_proc_stat *out)
{
    char path[64], text[1024];
    if (pid == 0)
        snprintf(path, sizeof path, "/proc/self/stat");
    else
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0)
        return -1;
    text[got] = '\0';
    /* The command name may hold spaces and parentheses: the fields start after its last ')'. */
    char *field = strrchr(text, ')');
    if (field == NULL || field[1] != ' ' || field[2] == '\0')
        return -1;
    out->state = field[2];
    out->ppid = strtol(field + 4, NULL, 10);
    for (int i = 2; field != NULL && i < 22; i++)
        field = strchr(field + 1, ' ');
    out->start_ticks = field != NULL ? strtoull(field + 1, NULL, 10) : 0;
    return 0;
}
