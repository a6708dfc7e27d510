# SPDX-License-Identifier: MIT
# The man pages the build wrote (BUILDDIR/man): one per command of the command table and
# iotape(1), each listing exactly the options `iotape help CMD` lists, with the same summary,
# options named in the synopsis that exist, no groff warnings, and the same roff as
# `iotape help --man CMD`.
source "$SRCDIR/tests/integration/lib.bash"
: "${BUILDDIR:?}"
need_cmd man
cd "$TMP"
export MANPAGER=cat PAGER=cat MANWIDTH=100 LC_ALL=C.UTF-8
mandir=$BUILDDIR/man
[ -s "$mandir/iotape.1.gz" ] || fail "no $mandir/iotape.1.gz: the build writes the pages"

# the command table, as `iotape --help` lists it: "   NAME       summary"
iotape_commands >cmds
[ "$(wc -l <cmds)" -ge 7 ] || fail "fewer commands than expected: $(cat cmds)"
# ... which is every CMD(X) line of the table in cli/iotape.c
table=$(sed -n 's/^[[:space:]]*CMD(\([a-z0-9_]*\)),.*/\1/p' "$SRCDIR/cli/iotape.c" | sort)
expect_eq "commands in --help and in cli/iotape.c's table" "$(cut -f1 cmds | sort)" "$table"
pages=$(cd "$mandir" && ls)
expect=$( (echo iotape.1.gz; cut -f1 cmds | sed 's/.*/iotape-&.1.gz/') | sort)
expect_eq "pages in $mandir" "$(echo "$pages" | sort)" "$expect"

# lines of rendered text holding a man(7) request or macro ("... .SY \"iotape x\"")
raw_macros() {
	grep -nE '\.(SY|YS|TH|SH|SS|TP|PP|LP|IP|RS|RE|EX|EE|BR|IR|RB|RI)( |$)|^ *\.(B|I|nf|fi|br|sp)( |$)' "$1" || true
}

opts() { python3 "$SRCDIR/tests/integration/doc_opts.py" "$@"; }

for page in iotape $(cut -f1 cmds); do
	if [ "$page" = iotape ]; then
		file=$mandir/iotape.1.gz
		"$IOTAPE" --help >help.txt
		"$IOTAPE" help --man >man.roff
	else
		file=$mandir/iotape-$page.1.gz
		"$IOTAPE" help "$page" >help.txt
		"$IOTAPE" help --man "$page" >man.roff
	fi
	zcat "$file" | cmp -s - man.roff || fail "$page: $file is not what 'iotape help --man' writes"
	if [ "$page" != iotape ] && [ "$page" != help ]; then
		# every command takes --man and --help, wherever they stand among its options
		"$IOTAPE" "$page" -o x --man >cmd.roff || fail "$page --man: exit $?"
		cmp -s cmd.roff man.roff || fail "$page --man is not 'iotape help --man $page'"
		"$IOTAPE" "$page" --help | cmp -s - help.txt || fail "$page --help is not 'iotape help $page'"
		# a typo names the option meant: the first long option with two letters swapped
		o=$(opts help help.txt | tr ' ' '\n' | grep -E '^--[a-z]{4,}$' | head -1) || o=
		if [ -n "$o" ]; then
			typo="--${o:3:1}${o:2:1}${o:4}"
			msg=$("$IOTAPE" "$page" "$typo" 2>&1) && fail "$page $typo: accepted"
			[[ $msg == *"unknown option '$typo'; did you mean '$o'?"* ]] ||
				fail "$page $typo: no suggestion of $o: $msg"
		fi
	fi
	warn=$(man --warnings -l "$file" 2>&1 >man.txt) || fail "$page: man -l failed: $warn"
	[ -z "$warn" ] || fail "$page: groff warns: $warn"
	# groff's strictest warnings, and no request or macro left standing in the text (a
	# macro placed mid-line is printed, not run)
	warn=$(groff -ww -man -z man.roff 2>&1) || fail "$page: groff failed: $warn"
	[ -z "$warn" ] || fail "$page: groff -ww warns: $warn"
	raw=$(raw_macros man.txt)
	[ -z "$raw" ] || fail "$page: a macro printed as text: $raw"

	name=$(sed -n '/^NAME$/{n;p;q}' man.txt | sed 's/^ *//')
	if [ "$page" != iotape ]; then
		summary=$(awk -F'\t' -v c="$page" '$1 == c {print $2}' cmds)
		expect_eq "$page: NAME" "$name" "iotape-$page - $summary"
	fi

	h=$(opts help help.txt)
	m=$(opts man man.txt)
	expect_eq "$page: options in help and man page" "$h" "$m"
	# every option the synopsis names (a word starting with '-', after a blank, '[', '(' or
	# '|') is one the command has
	sed -n '1,/^$/p' help.txt | { grep -oE -- '(^|[][ (|])--?[A-Za-z0-9][a-z0-9-]*' || true; } |
		sed 's/^[][ (|]//' | sort -u | while read -r o; do
			[[ " $h " == *" $o "* ]] || fail "$page: the synopsis names '$o', no such option"
		done
done

# a bad page cannot pass: an option dropped from the man page is found
zcat "$mandir/iotape-analyze.1.gz" | sed '/^\\fB\\-\\-json/,+1d' >bad.1
man -l bad.1 >bad.txt 2>/dev/null
[ "$(opts man bad.txt)" != "$(opts help <("$IOTAPE" help analyze))" ] ||
	fail "the check did not see an option missing from a page"
# ... nor a macro printed as text
printf '.TH X 1\n.SH SYNOPSIS\n.SY "x"\nfoo.SY "x"\n.YS\n' >bad2.1
man -l bad2.1 >bad2.txt 2>/dev/null
[ -n "$(raw_macros bad2.txt)" ] || fail "the check did not see a macro printed as text"
echo "ok: $(wc -l <cmds) commands, $(echo "$pages" | wc -l) pages"
