# SPDX-License-Identifier: MIT
# The bash completion the build wrote (BUILDDIR/completion/iotape), driven as bash drives it
# (COMP_WORDS, COMP_CWORD): commands, each command's options exactly as its help lists them,
# option values (every value offered is one the command accepts, and a wrong one is refused),
# --opt=VALUE, run directories, trace sets and captures, and the program after capture's "--".
source "$SRCDIR/tests/integration/lib.bash"
: "${BUILDDIR:?}"
script=$BUILDDIR/completion/iotape
[ -s "$script" ] || fail "no $script: the build writes it"
cmp -s "$script" <("$IOTAPE" help --completion) || fail "$script is not what iotape writes"
bash -n "$script" || fail "$script: bash syntax"
cd "$TMP"

# shellcheck source=/dev/null
source "$script"
[[ $(complete -p iotape) == "complete -F _iotape iotape" ]] || fail "not registered: $(complete -p iotape)"

# complete WORD...: what bash offers for the last word, one per line, sorted
complete_words() {
	local COMP_WORDS=(iotape "$@") COMP_CWORD=$# COMP_LINE="iotape $*" COMP_POINT COMPREPLY=()
	COMP_POINT=${#COMP_LINE}
	set +e
	_iotape iotape "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	set -e
	((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
# expect_complete "WORDS" WANT...: the words are split at blanks; a trailing blank means an
# empty word is completed
expect_complete() {
	local words=() got want
	read -ra words <<<"$1"
	[[ $1 == *" " ]] && words+=("")
	shift
	got=$(complete_words "${words[@]}" | tr '\n' ' ')
	want=$( (($# == 0)) || printf '%s\n' "$@" | sort -u | tr '\n' ' ')
	expect_eq "completing '$*' after 'iotape ${words[*]}'" "$got" "$want"
}

# commands: the table, as --help lists it
cmds=$(iotape_commands | cut -f1)
# shellcheck disable=SC2086
expect_complete " " $cmds
expect_complete "an" analyze
expect_complete "-" --help -h --version
# shellcheck disable=SC2086
expect_complete "help " $cmds
expect_complete "help --man c" capture compare

# every command's options: exactly those its help lists
for c in $cmds; do
	"$IOTAPE" help "$c" >help.txt
	h=$(python3 "$SRCDIR/tests/integration/doc_opts.py" help help.txt)
	# shellcheck disable=SC2086
	expect_complete "$c -" $h --help --man
done
expect_complete "analyze --j" --json

# files: run directories, trace sets by NAME (or their files once the name is past), captures
# (directories without the "/" that bash adds when it shows them: compopt -o filenames)
mkdir -p run/sub empty
touch run/trace.blktrace.0 run/trace.blktrace.1 run/manifest.json cap.pcap cap2.pcapng.gz notes.txt
expect_complete "analyze " run empty cap.pcap cap2.pcapng.gz
expect_complete "analyze run/" run/sub run/trace run/manifest.json
expect_complete "compare cap.pcap run/t" run/trace
expect_complete "analyze run/trace.blk" run/trace.blktrace.0 run/trace.blktrace.1
expect_complete "analyze no" notes.txt
expect_complete "analyze -o no" notes.txt
expect_complete "analyze --output = no" notes.txt # --output=no, as bash splits it
expect_complete "help --man-dir " run empty
expect_complete "help --man-dir = e" empty
expect_complete "help --man-dir = " run empty
expect_complete "analyze --top " # a number: nothing to offer

# option values: every word offered is accepted, a wrong one is refused with its name; the
# options with words, from the script: "  -e | --engine) _iotape_value words 'a b c'; ..."
cd empty
nwords=0
while IFS=$'\t' read -r c opt words; do
	for w in $words; do
		expect_complete "$c $opt ${w:0:1}" $(printf '%s\n' $words | grep "^${w:0:1}")
		timeout 20 "$IOTAPE" "$c" "$opt" "$w" >/dev/null 2>err || true
		! grep -q -- "'$w'" err || fail "$c $opt $w: offered, but refused: $(cat err)"
		nwords=$((nwords + 1))
	done
	timeout 20 "$IOTAPE" "$c" "$opt" zz-no-such >/dev/null 2>err && fail "$c $opt zz-no-such: accepted"
	grep -q -- "$opt: 'zz-no-such'" err || fail "$c $opt zz-no-such: not refused: $(cat err)"
done < <(awk '
	/^\t[a-z][a-z0-9-]*\)$/ { c = substr($1, 1, length($1) - 1) }
	/_iotape_value words/ {
		split($0, q, "'\''"); n = split($0, a, /[\t )|]+/)
		for (i = 1; i <= n; i++) if (a[i] ~ /^--/) { print c "\t" a[i] "\t" q[2]; break }
	}' "$script")
cd ..
[ "$nwords" -ge 5 ] || fail "only $nwords option values offered: the value lists are not there"

# capture: after "--" the program, then its arguments as files; devices and interfaces
expect_complete "capture -o run -- ls" $(compgen -c -- ls)
expect_complete "capture -o run -- ls no" notes.txt
expect_complete "capture -o run -d " $(ls /sys/class/block | sed 's|^|/dev/|')
expect_complete "capture -i " $(ls /sys/class/net) any

echo "ok: $(echo $cmds | wc -w) commands, $nwords option values"
