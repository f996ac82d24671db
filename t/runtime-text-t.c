/* runtime-text-t.c - the agent's map of the OpenMP runtime's code (tools/agent/runtime_text.c): a barrier wait the runtime placed at an address of its own code has no user location, any other keeps its address. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/tap.h"
#include "omp_collector_api.h"
#include "runtime_text.h"

#define BASE UINT64_C(0x7f0000000000)

/* An object as the loader describes it: `count` segments, the executable ones 0x1000 long from vaddr 0x1000 on. */
static struct dl_phdr_info object(const char *name, ElfW(Phdr) *segments, int count, int executable)
{
    for (int i = 0; i < count; i++)
        segments[i] = (ElfW(Phdr)){.p_type = PT_LOAD, .p_flags = PF_R | (i < executable ? PF_X : 0),
                                   .p_vaddr = 0x1000 * (ElfW(Addr))(i + 1), .p_memsz = 0x1000};
    return (struct dl_phdr_info){.dlpi_addr = BASE, .dlpi_name = name, .dlpi_phdr = segments,
                                 .dlpi_phnum = (ElfW(Half))count};
}

static void names(void)
{
    tap_ok(ompc_runtime_name("/usr/lib/llvm-14/lib/libomp.so.5"), "libomp.so.5 is a runtime");
    tap_ok(ompc_runtime_name("libgomp.so.1") && ompc_runtime_name("/opt/intel/libiomp5.so"),
           "libgomp.so.1 and libiomp5.so are runtimes");
    tap_ok(ompc_runtime_name("/tmp/ompcollect.AbC123/libompcollect-runtime.so"),
           "the launcher's link to the runtime behind its libgomp.so.1 is a runtime");
    tap_ok(!ompc_runtime_name("/usr/lib/libompcollector.so") && !ompc_runtime_name("libompcollect-agent.so")
               && !ompc_runtime_name("") && !ompc_runtime_name(NULL),
           "the shim, the agent, an empty name and none are not");
}

int main(void)
{
    tap_plan(15);
    names();
    uint64_t user = (uint64_t)(uintptr_t)&main;
    ompc_runtime_text_note();
    tap_ok(!ompc_runtime_text_holds(user), "no runtime loaded: this program's code is not the runtime's");
    tap_is_int((long long)ompc_barrier_site(THR_IBAR_STATE, user), (long long)user,
               "an implicit barrier at the user's code keeps its address");

    ElfW(Phdr) segments[12];
    struct dl_phdr_info other = object("/usr/lib/libfoo.so", segments, 2, 2);
    ompc_runtime_text_add(&other);
    tap_ok(!ompc_runtime_text_holds(BASE + 0x1800), "an executable segment of another object is not noted");

    /* libomp: text at +0x1000 (executable), data at +0x2000 and +0x3000. */
    struct dl_phdr_info libomp = object("/usr/lib/llvm-14/lib/libomp.so.5", segments, 3, 1);
    ompc_runtime_text_add(&libomp);
    tap_ok(ompc_runtime_text_holds(BASE + 0x1000) && ompc_runtime_text_holds(BASE + 0x1fff),
           "the runtime's executable segment is its code, both ends");
    tap_ok(!ompc_runtime_text_holds(BASE + 0x2000) && !ompc_runtime_text_holds(BASE + 0xfff),
           "neither its data segment nor what lies below its code");

    uint64_t inside = BASE + 0x1545;
    tap_is_int((long long)ompc_barrier_site(THR_IBAR_STATE, inside), 0,
               "an implicit barrier at the runtime's code has no user location (its region's construct takes it)");
    tap_is_int((long long)ompc_barrier_site(THR_EBAR_STATE, inside), 0, "nor has an explicit one");
    tap_is_int((long long)ompc_barrier_site(THR_LKWT_STATE, inside), (long long)inside,
               "a lock wait keeps the address it was given");
    tap_is_int((long long)ompc_barrier_site(THR_IBAR_STATE, user), (long long)user,
               "a barrier at the user's code still keeps its address");

    /* A runtime of ten executable segments fills the 8 ranges (one is taken): the first 7 count, no more. */
    struct dl_phdr_info wide = object("/opt/libiomp5.so", segments, 10, 10);
    wide.dlpi_addr = BASE + 0x100000;
    ompc_runtime_text_add(&wide);
    tap_ok(ompc_runtime_text_holds(BASE + 0x100000 + 0x7000), "a wide runtime's 7th segment is noted");
    tap_ok(!ompc_runtime_text_holds(BASE + 0x100000 + 0x8000) && ompc_runtime_text_holds(BASE + 0x1000),
           "past OMPC_RUNTIME_TEXT_RANGES nothing more is noted, and what was stays");
    return tap_done();
}
