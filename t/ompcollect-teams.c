/* ompcollect-teams.c - a host teams construct and a target region run on the host, each a combined construct with a parallel loop inside, for t/ompcollect-teams.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#define N 4096
#define ROUNDS 20

static double data[N];

/* A target region: with no offload target clang compiles it to a host entry (__omp_offloading_..._offload_lLINE) called in place. */
__attribute__((noinline)) double offload(void)
{
    double sum = 0;
#pragma omp target teams distribute parallel for num_teams(2) map(tofrom : sum) reduction(+ : sum) /* TARGET */
    for (int i = 0; i < N; i++)
        sum += i * 0.5;
    return sum;
}

int main(void)
{
    double sum = 0;
    for (int i = 0; i < N; i++)
        data[i] = i;
    for (int round = 0; round < ROUNDS; round++) {
#pragma omp teams distribute parallel for num_teams(2) reduction(+ : sum) /* HOST_TEAMS */
        for (int i = 0; i < N; i++)
            sum += data[i];
        sum += offload();
    }
    printf("teams: %d rounds, sum %.0f\n", ROUNDS, sum);
    return 0;
}
