/* symbolizer-front.c - a static front end for llvm-symbolizer that drops LD_PRELOAD, so a sanitized shim preloaded into a test does not break its sanitizer's symbolizer. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef SYMBOLIZER
#define SYMBOLIZER "/usr/bin/llvm-symbolizer"
#endif

/* Runs the real symbolizer with our arguments and without the preload. */
int main(int argc, char **argv)
{
    (void)argc;
    unsetenv("LD_PRELOAD");
    execv(SYMBOLIZER, argv);
    perror(SYMBOLIZER);
    return 127;
}
