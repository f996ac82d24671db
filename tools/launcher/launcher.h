/* launcher.h - what every part of the launcher shares: its name, its own exit statuses, the collector's file names, and how it speaks (die, say). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_LAUNCHER_H
#define OMPCOLLECT_LAUNCHER_H 1

/* The name messages start with. */
#define PROGRAM_NAME "ompcollect"

/* ompcollect's own failures; like env(1): 125 itself, 126 cannot execute, 127 not found. */
enum { EXIT_OWN_FAILURE = 125, EXIT_CANNOT_EXECUTE = 126, EXIT_NOT_FOUND = 127 };

#define AGENT_NAME "libompcollect-agent.so"
#define SHIM_NAME "libompcollector.so"
/* The MPI library, installed beside the agent (built only when configure found an MPI). */
#define MPI_LIBRARY_NAME "libompcollect-mpi.so"
/* The private directory's link to the runtime, which ompcollect's libgomp.so.1 needs (tools/gomp/gomp5.c). */
#define RUNTIME_LINK "libompcollect-runtime.so"

/* The LLVM libomp configure found: what GCC's libgomp is replaced by unless told otherwise. */
#ifndef OMPCOLLECT_DEFAULT_RUNTIME
#define OMPCOLLECT_DEFAULT_RUNTIME ""
#endif

/* Prints a message prefixed with our name and exits with `status`. */
void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* Prints a message prefixed with our name. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* OMPCOLLECT_LAUNCHER_H */
