# tap.sh - the TAP lines the shell tests share (sourced): result and skip, numbered with $n.
# SPDX-License-Identifier: BSD-3-Clause
# Needs nothing but a POSIX shell, so tests that run without libomp or
# python3 (the manual pages, make install) source it too.

# The TAP helpers below number their lines with $n, which each test sets to 0
# after its plan.  result() shows each diagnostic file through $result_lines
# (a test may show more, or the tail), and first calls the function named
# by $result_summary on it, when a test names one.
result_lines="head -n 30"
result_summary=

# result STATUS DESCRIPTION [FILE...]: one TAP line; on failure the named files become diagnostics.
result() {
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        shift 2
        for file in "$@"; do
            [ -n "$result_summary" ] && "$result_summary" "$file"
            # shellcheck disable=SC2086 # a command and its arguments
            [ -f "$file" ] && sed -e "s|^|# $(basename "$file"): |" "$file" | $result_lines
        done
    fi
}

# skip REASON [COUNT [DESCRIPTION]]: COUNT (1 unless given) TAP lines skipped for REASON, with the test's DESCRIPTION when given.
skip() {
    for _ in $(seq "${2:-1}"); do
        n=$((n + 1))
        echo "ok $n${3:+ - $3} # SKIP $1"
    done
}
