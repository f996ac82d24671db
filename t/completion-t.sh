#!/bin/sh
# completion-t.sh - the bash completion for ompcollect completes its options, their values, and the program and its arguments, with and without bash-completion loaded.
# SPDX-License-Identifier: BSD-3-Clause
: "${top_srcdir:?}" "${top_builddir:?}"
completion=$top_srcdir/tools/bash-completion/ompcollect
bash_completion=${BASH_COMPLETION_SCRIPT:-/usr/share/bash-completion/bash_completion}

if ! command -v bash >/dev/null 2>&1; then
    echo "1..0 # SKIP bash is not installed"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/completion-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cwd" && : >"$tmp/cwd/report.txt" && : >"$tmp/cwd/run.svg" && : >"$tmp/cwd/r0.json" || exit 99

# complete.bash MODE CWORD WORD... sets COMP_* as bash does for that command
# line (cursor at the end of word CWORD; '=' is a word of its own, as bash
# splits at it), calls the completion function and prints COMPREPLY sorted,
# one per line.
cat >"$tmp/complete.bash" <<'EOF'
mode=$1 completion=$2 bash_completion=$3
shift 3
if [ "$mode" = with ]; then
    . "$bash_completion" || exit 1
fi
. "$completion" || exit 1
COMP_CWORD=$1
shift
COMP_WORDS=("$@")
COMP_LINE=
for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    # no blank around '=' nor after a word that ends in '='
    if ((i > 0)) && [[ $w != = && ${COMP_WORDS[i-1]} != = ]]; then COMP_LINE+=' '; fi
    COMP_LINE+=$w
done
COMP_POINT=${#COMP_LINE}
COMP_TYPE=9
COMP_KEY=9
_ompcollect ompcollect "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort -u
EOF

n=0
failed=0
modes=alone
if [ -r "$bash_completion" ]; then
    modes="alone with"
else
    echo "# bash-completion is not installed ($bash_completion): testing the completion alone"
fi
# Prints COMPREPLY for MODE, with the cursor at the end of the last word.
complete_line() {
    mode=$1
    shift
    (cd "$tmp/cwd" && bash "$tmp/complete.bash" "$mode" "$completion" "$bash_completion" $(($# - 1)) "$@")
}
# expect MODE DESCRIPTION 'EXPECTED REPLY, space separated' WORD...: the reply must be exactly that.
expect() {
    mode=$1 desc=$2 want=$3
    shift 3
    got=$(complete_line "$mode" "$@" | tr '\n' ' ' | sed 's/ $//')
    n=$((n + 1))
    if [ "$got" = "$want" ]; then
        echo "ok $n - $mode: $desc"
    else
        echo "not ok $n - $mode: $desc"
        echo "#   words: $*"
        echo "#   wanted: '$want'"
        echo "#   got:    '$got'"
        failed=$((failed + 1))
    fi
}
# has MODE DESCRIPTION yes|no ITEM WORD...: ITEM must (yes) or must not (no) be in the reply.
has() {
    mode=$1 desc=$2 polarity=$3 item=$4
    shift 4
    reply=$(complete_line "$mode" "$@")
    n=$((n + 1))
    if printf '%s\n' "$reply" | grep -qxF -- "$item"; then found=yes; else found=no; fi
    if [ "$found" = "$polarity" ]; then
        echo "ok $n - $mode: $desc"
    else
        echo "not ok $n - $mode: $desc"
        echo "#   words: $*"
        echo "#   reply: $(printf '%s\n' "$reply" | head -n 10 | tr '\n' ' ')"
        failed=$((failed + 1))
    fi
}

for mode in $modes; do
    expect "$mode" "--fo completes to --format=" "--format=" ompcollect --fo
    expect "$mode" "--format= offers the three formats" "csv json text" ompcollect --format = ""
    expect "$mode" "--format=j completes to json" "json" ompcollect --format = j
    expect "$mode" "-f offers the three formats" "csv json text" ompcollect -f ""
    expect "$mode" "--output= completes file names" "report.txt" ompcollect --output = rep
    expect "$mode" "-o completes file names" "report.txt" ompcollect -o rep
    has "$mode" "--timeline= completes .svg file names" yes run.svg ompcollect --timeline = ""
    has "$mode" "--trace-json= completes .json file names" yes r0.json ompcollect --trace-json = ""
    has "$mode" "--timeline-width= offers widths" yes 1920 ompcollect --timeline-width = ""
    expect "$mode" "--events completes the last item of a comma list" "lkwt,ctwt" ompcollect --events lkwt,ct
    expect "$mode" "-e completes an event name" "single" ompcollect -e sin
    has "$mode" "-e offers begin_ forms" yes begin_ibar ompcollect -e begin_i
    has "$mode" "--runtime= offers none" yes none ompcollect --runtime = ""
    has "$mode" "--runtime= completes paths" yes report.txt ompcollect --runtime = rep
    has "$mode" "the program is completed as a command" yes true ompcollect -f json tru
    has "$mode" "the program after -- is completed as a command" yes true ompcollect -- tru
    has "$mode" "the program's arguments are completed as its own (files)" yes report.txt ompcollect -o out.txt true rep
    has "$mode" "options after the program are not ompcollect's" no --format= ompcollect -f json true --fo
    has "$mode" "a valued option's value is not taken for the program" yes --no-sample ompcollect -i 2ms --no-s
    has "$mode" "the merge subcommand is offered as the first word" yes merge ompcollect me
    has "$mode" "merge is not offered after an option" no merge ompcollect --no-sample me
    expect "$mode" "merge -f offers its two formats" "json text" ompcollect merge -f ""
    has "$mode" "merge completes JSON reports" yes r0.json ompcollect merge r0
    has "$mode" "merge completes its options" yes --format= ompcollect merge --fo
done

# Every long option ompcollect --help lists is completed.
oc=$top_builddir/tools/ompcollect
if [ -x "$oc" ]; then
    options=$("$oc" --help 2>/dev/null | grep -o -e '--[a-z][a-z-]*' | LC_ALL=C sort -u)
    reply=$(complete_line alone ompcollect -- | sed 's/=$//')
    # "ompcollect --" has the cursor on "--": it is completed as an option prefix.
    for option in $options; do
        n=$((n + 1))
        if printf '%s\n' "$reply" | grep -qxF -- "$option"; then
            echo "ok $n - --help's $option is completed"
        else
            echo "not ok $n - --help's $option is completed"
            failed=$((failed + 1))
        fi
    done
else
    n=$((n + 1))
    echo "ok $n # SKIP $oc is not built: cannot compare with --help"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
