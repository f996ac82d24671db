/* ompcollect-hostile.c - an OpenMP program that damages ompcollect's record from inside, as a buggy or hostile program could: plants a process entry naming another process, cuts the record short, or scribbles over its own slot; for t/ompcollect-hostile.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"

/* The record the launcher handed down, mapped; NULL when there is none. */
static struct ompc_record_header *map_record(int *fd)
{
    const char *env = getenv(OMPC_RECORD_ENV);
    struct stat info;
    if (env == NULL || sscanf(env, "%d", fd) != 1 || fstat(*fd, &info) != 0)
        return NULL;
    void *mapping = mmap(NULL, (size_t)info.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    return mapping == MAP_FAILED ? NULL : mapping;
}

int main(int argc, char **argv)
{
    double sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 1000000; i++)
        sum += i * 0.5;
    int fd;
    struct ompc_record_header *header = map_record(&fd);
    if (argc < 2 || header == NULL) {
        fprintf(stderr, "usage: %s plant PID | plant-next PID [MARKER] | cut | scribble (under ompcollect)\n", argv[0]);
        return 2;
    }
    if ((strcmp(argv[1], "plant") == 0 && argc == 3) || (strcmp(argv[1], "plant-next") == 0 && argc <= 4)) {
        /*
         * A slot past ours that says "still recording" and names a process
         * that is not ours: the table's last (every free slot before it
         * claimed, so the launcher's scan reaches it), or the next one,
         * which spares the launcher reading 62 claimed slots.
         */
        int last = strcmp(argv[1], "plant") == 0;
        struct ompc_process *forged = ompc_record_process(header, last ? header->process_count - 1 : 1);
        forged->pid = atoi(argv[2]);
        forged->start_ticks = 0;
        atomic_store(&forged->state, OMPC_PROC_RECORDING);
        for (uint32_t i = 1; last && i < header->process_count; i++)
            if (atomic_load(&ompc_record_process(header, i)->state) == OMPC_PROC_FREE)
                atomic_store(&ompc_record_process(header, i)->state, OMPC_PROC_CLAIMED);
        /*
         * With a MARKER: says the entry is planted by writing its pid there
         * (whole, through a rename), then waits for a signal, so that the
         * test's SIGTERM to the launcher lands while it supervises this
         * process (its default action ends the wait; a minute at most).
         */
        if (argc == 4) {
            char temporary[4096];
            snprintf(temporary, sizeof temporary, "%s.tmp", argv[3]);
            FILE *marker = fopen(temporary, "w");
            if (marker == NULL || fprintf(marker, "%ld\n", (long)getpid()) < 0 || fclose(marker) != 0
                || rename(temporary, argv[3]) != 0)
                return 4;
            for (int waited = 0; waited < 60; waited++)
                sleep(1);
            return 5;
        }
    } else if (strcmp(argv[1], "cut") == 0) {
        /*
         * Cut away everything past this process's slot (the other slots and
         * the arena, which nothing of this run uses), so the agent, whose
         * sampling handlers keep writing into the slot, never touches a page
         * that is gone (that would be SIGBUS, the program's own doing).
         */
        if (ftruncate(fd, (off_t)(header->process_offset + header->process_size)) != 0)
            return 3;
    } else if (strcmp(argv[1], "scribble") == 0) {
        struct ompc_process *own = ompc_record_process(header, 0);
        memset(own->program, 0xff, sizeof own->program);
        memset(own->runtime, 0xfe, sizeof own->runtime);
        atomic_store(&own->module_count, 99999);
    } else {
        return 2;
    }
    printf("sum %g\n", sum);
    return 0;
}
