/* gomp5.c - the libgomp.so.1 ompcollect puts in GCC's runtime's place: the OpenMP 5.x entry points GCC binds to libgomp's version nodes that LLVM's libomp lacks, forwarded to libomp's own functions. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * GCC binds a program's OpenMP calls to libgomp's symbol versions
 * (omp_fulfill_event@OMP_5.0.1).  libomp implements the functions but
 * defines some of them only in its base version, so the loader finds
 * nothing for such a call.  This library is what "libgomp.so.1" names
 * during a run: it defines every version node of GCC's libgomp.map that
 * libomp implements entry points of (gomp5.map), so the loader's version
 * check passes; the entry points libomp exports under those nodes itself
 * are found in libomp, which this library needs (DT_NEEDED
 * OMPC_RUNTIME_LINK, a link the launcher points at the runtime it chose);
 * the rest are the forwarders below.  The launcher checks, before the
 * program runs, that every versioned name the program needs is met.
 */
#ifndef OMPC_RUNTIME_LINK
#define OMPC_RUNTIME_LINK "libompcollect-runtime.so"
#endif

/* The handles and enums of the OpenMP API are machine words in both runtimes' ABIs. */
typedef uintptr_t handle;
/* A Fortran entry's argument, a pointer (or a word, in some releases), passed through as it came. */
typedef uintptr_t word;

/* Writes `text` to standard error, as far as it goes. */
static void tell(const char *text)
{
    for (size_t length = strlen(text); length > 0;) {
        ssize_t written = write(STDERR_FILENO, text, length);
        if (written <= 0)
            return;
        text += written;
        length -= (size_t)written;
    }
}

/*
 * libomp's function `name`, looked up once.  The launcher refuses a program
 * needing a name the runtime lacks before it runs, but not a module it
 * dlopens later: such a call ends the process, saying which name it was.
 */
static void *runtime_function(void *volatile *cache, const char *name, const char *version)
{
    void *function = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (function != NULL)
        return function;
    void *runtime = dlopen(OMPC_RUNTIME_LINK, RTLD_LAZY | RTLD_NOLOAD);
    function = runtime != NULL ? dlsym(runtime, name) : NULL;
    if (function == NULL) {
        tell("ompcollect: the program called an OpenMP entry point the LLVM runtime in GCC's libgomp's place "
             "does not implement: ");
        tell(name);
        tell("@");
        tell(version);
        tell("\n");
        abort();
    }
    __atomic_store_n(cache, function, __ATOMIC_RELEASE);
    return function;
}

/* One forwarder: `name`, exported under `version` by gomp5.map, calls libomp's `name`. */
#define FORWARD(result, name, version, parameters, arguments)                                      \
    result name parameters;                                                                        \
    result name parameters                                                                         \
    {                                                                                              \
        static void *volatile cache;                                                               \
        result(*function) parameters = (result(*) parameters)runtime_function(&cache, #name, version); \
        return function arguments;                                                                 \
    }

/* OMP_5.0.1: allocators, events, supported levels. */
FORWARD(void *, omp_alloc, "OMP_5.0.1", (size_t size, handle allocator), (size, allocator))
FORWARD(void, omp_free, "OMP_5.0.1", (void *pointer, handle allocator), (pointer, allocator))
FORWARD(handle, omp_init_allocator, "OMP_5.0.1", (handle memspace, int count, const void *traits),
        (memspace, count, traits))
FORWARD(handle, omp_init_allocator_, "OMP_5.0.1", (word memspace, word count, word traits),
        (memspace, count, traits))
FORWARD(void, omp_destroy_allocator, "OMP_5.0.1", (handle allocator), (allocator))
FORWARD(void, omp_destroy_allocator_, "OMP_5.0.1", (word allocator), (allocator))
FORWARD(void, omp_set_default_allocator, "OMP_5.0.1", (handle allocator), (allocator))
FORWARD(void, omp_set_default_allocator_, "OMP_5.0.1", (word allocator), (allocator))
FORWARD(handle, omp_get_default_allocator, "OMP_5.0.1", (void), ())
FORWARD(handle, omp_get_default_allocator_, "OMP_5.0.1", (void), ())
FORWARD(void, omp_fulfill_event, "OMP_5.0.1", (handle event), (event))
FORWARD(void, omp_fulfill_event_, "OMP_5.0.1", (word event), (event))
FORWARD(int, omp_get_supported_active_levels, "OMP_5.0.1", (void), ())
FORWARD(int, omp_get_supported_active_levels_, "OMP_5.0.1", (void), ())

/* OMP_5.0.2: more allocation calls, the device number. */
FORWARD(void *, omp_aligned_alloc, "OMP_5.0.2", (size_t alignment, size_t size, handle allocator),
        (alignment, size, allocator))
FORWARD(void *, omp_calloc, "OMP_5.0.2", (size_t count, size_t size, handle allocator), (count, size, allocator))
FORWARD(void *, omp_aligned_calloc, "OMP_5.0.2", (size_t alignment, size_t count, size_t size, handle allocator),
        (alignment, count, size, allocator))
FORWARD(void *, omp_realloc, "OMP_5.0.2", (void *pointer, size_t size, handle allocator, handle free_allocator),
        (pointer, size, allocator, free_allocator))
FORWARD(int, omp_get_device_num, "OMP_5.0.2", (void), ())
FORWARD(int, omp_get_device_num_, "OMP_5.0.2", (void), ())

/* OMP_5.1: teams settings, omp_display_env. */
FORWARD(void, omp_display_env, "OMP_5.1", (int verbose), (verbose))
FORWARD(void, omp_display_env_, "OMP_5.1", (word verbose), (verbose))
FORWARD(void, omp_set_num_teams, "OMP_5.1", (int count), (count))
FORWARD(void, omp_set_num_teams_, "OMP_5.1", (word count), (count))
FORWARD(int, omp_get_max_teams, "OMP_5.1", (void), ())
FORWARD(int, omp_get_max_teams_, "OMP_5.1", (void), ())
FORWARD(void, omp_set_teams_thread_limit, "OMP_5.1", (int limit), (limit))
FORWARD(void, omp_set_teams_thread_limit_, "OMP_5.1", (word limit), (limit))
FORWARD(int, omp_get_teams_thread_limit, "OMP_5.1", (void), ())
FORWARD(int, omp_get_teams_thread_limit_, "OMP_5.1", (void), ())
