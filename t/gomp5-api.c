/* gomp5-api.c - a GCC-built program that binds OpenMP 5.x entry points to libgomp's versions LLVM's libomp lacks (omp_fulfill_event@OMP_5.0.1, omp_aligned_alloc@OMP_5.0.2, omp_get_max_teams@OMP_5.1) and calls them; "detach" also fulfils a detached task's event. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <string.h>

/* A task detached with `event`, and a second task that fulfils it: the taskwait ends only when both ran. */
static int detached(void)
{
    int done = 0;
    omp_event_handle_t event;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task detach(event) shared(done)
        done = 1;
#pragma omp task
        omp_fulfill_event(event);
#pragma omp taskwait
    }
    return done;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "detach") == 0) {
        printf("fulfilled %d\n", detached());
        return 0;
    }
    /* omp_fulfill_event is bound (the loader needs it) but called only above: no event exists here. */
    void *memory = omp_aligned_alloc(64, 4096, omp_default_mem_alloc);
    int threads = 0;
#pragma omp parallel num_threads(2) reduction(+ : threads)
    threads += omp_get_supported_active_levels() > 0;
    omp_free(memory, omp_default_mem_alloc);
    printf("threads %d aligned %d teams %d device %d\n", threads, memory != NULL && (size_t)memory % 64 == 0,
           omp_get_max_teams() >= 0, omp_get_device_num() >= 0);
    return 0;
}
