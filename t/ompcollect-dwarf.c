/* ompcollect-dwarf.c - a program for --stacks-unwind=dwarf, built optimized without frame pointers: a task tree (fib), a function calling libm in a loop, one walking a list on the stack through the frame-pointer register and one whose callee spends its time in its epilogue; t/ompcollect-dwarf.sh checks its stacks reach main (and that the frame-pointer walk takes no data word for a frame), bench/run.py times its fixed-work mode. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <signal.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define KEEP __attribute__((noinline))

/* Kept from being optimized away. */
volatile double sink;

/* Work at the leaves of the task tree, so samples land in fib's own code. */
KEEP static double leaf_work(int n)
{
    double x = n;
    for (int i = 0; i < 2000; i++)
        x = x * 1.0000001 + 0.5;
    return x;
}

/* fib by tasks: a deep recursion without frame pointers. */
KEEP long fib(int n)
{
    if (n < 2) {
        sink = leaf_work(n);
        return n;
    }
    long a, b;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

/* A team runs one task tree after another until the time is up. */
KEEP void task_tree(double seconds)
{
    double end = omp_get_wtime() + seconds;
#pragma omp parallel
#pragma omp single
    while (omp_get_wtime() < end)
        sink = (double)fib(16);
}

/* libm in a loop: its frames have no frame pointers, but the caller must stay. */
KEEP void init_data(double seconds)
{
    double end = omp_get_wtime() + seconds;
    double sum = 0;
    while (omp_get_wtime() < end)
        for (int i = 0; i < 100000; i++)
            sum += cos(sum + i) * sin(sum - i);
    sink = sum;
}

/*
 * Blocks every signal around a little work, again and again, for `seconds`
 * of wall-clock time: the samples the blocked timer held back arrive as the
 * mask is lifted, inside the agent's interposed pthread_sigmask, whose
 * frames are not the user's.  The agent's timers run on wall-clock time, so
 * a time, not a number of rounds, gives the same samples on a fast or a
 * slow CPU (a fixed 9,000 rounds gave 4 samples where the check needs 10
 * on a CPU twice this one's speed).  The work inside the mask is four
 * times the two calls' cost: a sample the timer gives while the thread is
 * in the unmasking call itself (a loaded box delivers the ticks it was
 * preempted for there) belongs there, and was the half the check allows
 * in 1 run of 4 under make -j2 check beside other builds.
 */
KEEP void mask_loop(double seconds)
{
    sigset_t all, old;
    sigfillset(&all);
    double end = omp_get_wtime() + seconds;
    while (omp_get_wtime() < end) {
        pthread_sigmask(SIG_BLOCK, &all, &old);
        for (int i = 0; i < 4; i++)
            sink = leaf_work(3);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
}

/* A list on the stack, as a solver's work list may be: each node's next lies above it, a double beside. */
struct node {
    struct node *next;
    double value;
};

KEEP static double scale(double x)
{
    return x * 1.0000001;
}

/* Called through a pointer, so the compiler cannot know which registers the call leaves alone. */
static double (*volatile scale_call)(double) = scale;

/*
 * Adds up a list.  Code without frame pointers uses the frame-pointer
 * register like any other; here it holds the list pointer, so a
 * frame-pointer walk from a sample in this loop reads the list as frames:
 * each node's next as the caller's frame pointer and its double as the
 * return address (issue 35's 0x412ed6c38f461035).  The pointer lives across
 * the call, so it needs a callee-saved register, and the asm takes all the
 * others from it, as a busier loop's values would.
 */
KEEP static double sum_list(const struct node *p)
{
    double sum = 0;
    for (; p != NULL; p = p->next) {
#if defined(__x86_64__)
        __asm__ volatile("" ::: "rbx", "r12", "r13", "r14", "r15");
#endif
        sum += scale_call(p->value);
    }
    return sum;
}

/* Sums a list of 32 nodes on this stack again and again for `seconds` of wall-clock time. */
KEEP void list_loop(double seconds)
{
    struct node nodes[32];
    for (int i = 0; i < 32; i++) {
        nodes[i].next = i + 1 < 32 ? &nodes[i + 1] : NULL;
        nodes[i].value = 1000000.0 + 0.37 * i;
    }
    double end = omp_get_wtime() + seconds;
    while (omp_get_wtime() < end)
        sink = sum_list(nodes);
}

/*
 * Pushes and pops every callee-saved register, the frame pointer among
 * them, around almost nothing: much of the time here is in the epilogue,
 * where GCC's CFI still places the popped registers in their slots, now
 * under the stack pointer (the red zone).
 */
KEEP static long pops(long a, long b)
{
#if defined(__x86_64__)
    __asm__ volatile("" ::: "rbx", "rbp", "r12", "r13", "r14", "r15");
#endif
    return a + b;
}

/*
 * Calls pops again and again for `seconds` of wall-clock time.  The array
 * of a size known only at run time gives this function a frame-pointer
 * frame: its caller is found from the frame pointer, which pops's
 * epilogue has restored from the red zone.
 */
KEEP void epilogue_loop(double seconds, int size)
{
    volatile long scratch[size];
    scratch[0] = 1;
    long sum = 0;
    double end = omp_get_wtime() + seconds;
    while (omp_get_wtime() < end)
        for (int i = 0; i < 1000; i++)
            sum += pops(sum, i + scratch[0]);
    sink = (double)sum;
}

/* Fixed work for the bench: ROUNDS task trees, then the CPU seconds the process spent (sampling handlers included). */
static void fixed_work(int rounds)
{
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < rounds; i++)
        sink = (double)fib(16);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("cpu %.6f\n", (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec
                              + usage.ru_stime.tv_usec / 1e6);
}

/* SECONDS (0.5) of libm calls, blocked signals, list walks, epilogues, then task trees; with ROUNDS, fixed work instead. */
int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.5;
    if (argc > 2) {
        fixed_work(atoi(argv[2]));
        return 0;
    }
    init_data(seconds / 2);
    /* The whole SECONDS: most of mask_loop's ticks fall inside the mask and come as one (12 of 0.15 s's 75, 9 beside CPU hogs). */
    mask_loop(seconds);
    list_loop(seconds / 4);
    epilogue_loop(seconds / 2, argc + 7);
    task_tree(seconds);
    printf("%g\n", sink);
    return 0;
}
