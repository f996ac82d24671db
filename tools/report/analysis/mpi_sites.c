/* mpi_sites.c - the MPI calls by call site: the record's (call, return address) rows, named at the line of the call and ordered by time, so that MPI waiting is told by its call and where the program made it. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "locations.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

/* qsort: most time first, then most samples, then by call and address so equal rows keep one order. */
static int compare_sites(const void *a, const void *b)
{
    const struct ompc_model_mpi_site *x = &((const struct ompc_mpi_site_row *)a)->sum;
    const struct ompc_model_mpi_site *y = &((const struct ompc_mpi_site_row *)b)->sum;
    if (x->ns != y->ns)
        return x->ns < y->ns ? 1 : -1;
    if (x->ticks != y->ticks)
        return x->ticks < y->ticks ? 1 : -1;
    if (x->call != y->call)
        return x->call < y->call ? -1 : 1;
    return (x->site > y->site) - (x->site < y->site);
}

int ompc_mpi_sites_build(const struct ompc_model_process *process, struct ompc_symbolizer *symbolizer,
                         struct ompc_mpi_sites *out)
{
    memset(out, 0, sizeof *out);
    out->dropped = process->mpi_sites_dropped;
    out->rows = calloc((size_t)process->mpi_site_count + 1, sizeof *out->rows);
    if (out->rows == NULL)
        return -1;
    for (uint32_t i = 0; i < process->mpi_site_count; i++) {
        struct ompc_mpi_site_row *row = &out->rows[out->count++];
        row->sum = process->mpi_sites[i];
        row->setup = row->sum.call < OMPC_MPI_SETUP_CALLS;
        /* A return address: the line is the call's, the byte before it. */
        if (symbolizer != NULL)
            ompc_symbolize(symbolizer, row->sum.site, 1, &row->where);
    }
    ompc_qsort(out->rows, (size_t)out->count, sizeof *out->rows, compare_sites);
    return 0;
}
