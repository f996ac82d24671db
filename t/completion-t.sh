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

# complete.bash MODE COMPLETION BASH_COMPLETION CASES OUT runs the command
# lines of file CASES, one a line: INDEX, CWORD, the words and a last '.',
# separated by \037.  For each it sets COMP_* as bash does for that command
# line (cursor at the end of word CWORD; '=' is a word of its own, as bash
# splits at it), calls the completion function and writes COMPREPLY sorted,
# one per line, to OUT/INDEX.  One shell completes every line in turn, as an
# interactive shell does.
cat >"$tmp/complete.bash" <<'EOF'
mode=$1 completion=$2 bash_completion=$3 cases=$4 out=$5
if [ "$mode" = with ]; then
    . "$bash_completion" || exit 1
fi
. "$completion" || exit 1
while IFS= read -r line; do
    IFS=$'\037' read -r -a fields <<<"$line"
    COMP_CWORD=${fields[1]}
    COMP_WORDS=("${fields[@]:2:${#fields[@]}-3}")
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
    COMPREPLY=()
    _ompcollect ompcollect "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
    # Every reply, each line tagged with its command line's index (an empty reply is one empty line).
    if ((${#COMPREPLY[@]})); then printf "${fields[0]}\037%s\n" "${COMPREPLY[@]}"; else printf '%s\037\n' "${fields[0]}"; fi
done <"$cases" | LC_ALL=C sort -u | while IFS=$'\037' read -r index item; do
    printf '%s\n' "$item" >>"$out/$index"
done
EOF

n=0
failed=0
modes=alone
if [ -r "$bash_completion" ]; then
    modes="alone with"
else
    echo "# bash-completion is not installed ($bash_completion): testing the completion alone"
fi
# The tests run twice: the first pass (pass=queue) only queues each command
# line, one bash per mode completes them all, and the second pass (pass=check)
# judges the replies in the same order.
# complete_line MODE WORD...: queues the command line, or prints its reply.
complete_line() {
    mode=$1
    shift
    index=$((index + 1))
    if [ "$pass" = queue ]; then
        # A last field of its own: read -a drops an empty last word.
        { printf '%s\037%s' "$index" "$(($# - 1))"; printf '\037%s' "$@"; printf '\037.\n'; } >>"$tmp/cases.$mode"
    else
        cat "$tmp/replies/$index"
    fi
}
# expect MODE DESCRIPTION 'EXPECTED REPLY, space separated' WORD...: the reply must be exactly that.
expect() {
    mode=$1 desc=$2 want=$3
    shift 3
    if [ "$pass" = queue ]; then
        complete_line "$mode" "$@"
        return
    fi
    index=$((index + 1))
    # The reply's lines joined by blanks, without a process for it.
    got= first=yes
    while IFS= read -r word; do
        if [ $first = yes ]; then got=$word first=no; else got="$got $word"; fi
    done <"$tmp/replies/$index"
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
    if [ "$pass" = queue ]; then
        complete_line "$mode" "$@"
        return
    fi
    index=$((index + 1))
    reply=$(cat "$tmp/replies/$index")
    n=$((n + 1))
    found=no
    while IFS= read -r word; do
        [ "$word" = "$item" ] && found=yes
    done <"$tmp/replies/$index"
    if [ "$found" = "$polarity" ]; then
        echo "ok $n - $mode: $desc"
    else
        echo "not ok $n - $mode: $desc"
        echo "#   words: $*"
        echo "#   reply: $(printf '%s\n' "$reply" | head -n 10 | tr '\n' ' ')"
        failed=$((failed + 1))
    fi
}

tests() {
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
        has "$mode" "the diff subcommand is offered as the first word" yes diff ompcollect di
        expect "$mode" "diff -f offers its three formats" "csv json text" ompcollect diff -f ""
        has "$mode" "diff completes JSON reports" yes r0.json ompcollect diff r0
        has "$mode" "the scaling subcommand is offered as the first word" yes scaling ompcollect sc
        has "$mode" "scaling completes its options" yes --threads= ompcollect scaling --thr
        has "$mode" "scaling --reports completes JSON reports" yes r0.json ompcollect scaling --reports r0
        has "$mode" "scaling's program is completed as a command" yes true ompcollect scaling --threads=1,2 tru
    done

}

# Every long option ompcollect --help lists is completed.
oc=$top_builddir/tools/ompcollect
options() {
    if [ "$pass" = queue ]; then
        complete_line alone ompcollect --
        return
    fi
    options=$("$oc" --help 2>/dev/null | grep -o -e '--[a-z][a-z-]*' | LC_ALL=C sort -u)
    reply=$(complete_line alone ompcollect -- | sed 's/=$//')
    index=$((index + 1))
    # "ompcollect --" has the cursor on "--": it is completed as an option prefix.
    for option in $options; do
        n=$((n + 1))
        if case "$nl$reply$nl" in *"$nl$option$nl"*) true ;; *) false ;; esac; then
            echo "ok $n - --help's $option is completed"
        else
            echo "not ok $n - --help's $option is completed"
            failed=$((failed + 1))
        fi
    done
}

mkdir "$tmp/replies" || exit 99
nl='
'
for pass in queue check; do
    index=0
    tests
    if [ -x "$oc" ]; then
        options
    elif [ "$pass" = check ]; then
        n=$((n + 1))
        echo "ok $n # SKIP $oc is not built: cannot compare with --help"
    fi
    [ "$pass" = queue ] || continue
    for mode in $modes; do
        (cd "$tmp/cwd" && bash "$tmp/complete.bash" "$mode" "$completion" "$bash_completion" \
            "$tmp/cases.$mode" "$tmp/replies") || exit 99
    done
done

echo "1..$n"
[ "$failed" -eq 0 ]
