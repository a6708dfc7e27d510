# SPDX-License-Identifier: MIT
# iotape export --format blkparse against blkparse (Debian blktrace 1.2), byte for byte: the
# real samples, generated traces (several CPUs and devices, PDUs, remaps, messages, passthrough
# requests, pids named late or never, sequence gaps, records of another CPU; v8, other byte
# order and gzip against the plain v7 set), many random traces, a run directory of two sets,
# and grouped numbers in the en_US locale.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd blkparse
[ -x "$TOOLS/blkgen" ] || skip "blkgen not built"
# blkgen is the fixture, not the subject: its own leaks must not fail a sanitizer build here
blkgen() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$TOOLS/blkgen" "$@"; }
cd "$TMP"

# same WHAT BLKPARSE-ARGS... -- EXPORT-RUN: blkparse's stdout (to a file) against the export's
same() {
	local what=$1 args=() run
	shift
	while [ "$1" != "--" ]; do args+=("$1"); shift; done
	run=$2
	blkparse "${args[@]}" >bp.txt 2>/dev/null || fail "$what: blkparse ${args[*]}"
	"$IOTAPE" export "$run" --format blkparse -o io.txt || fail "$what: export"
	cmp -s bp.txt io.txt || { diff bp.txt io.txt | head -20 >&2; fail "$what: differs from blkparse"; }
	# standard output is the same text
	"$IOTAPE" export "$run" -f blkparse | cmp -s - io.txt || fail "$what: stdout differs from -o"
}

"$IOTAPE" help export | grep -- "--format" >/dev/null || fail "help export lacks --format"

# the real samples: run directories (blkparse -D DIR -i NAME ...), a set, and one of its files
nsamples=0
for m in "$SRCDIR"/samples/*/manifest.json "$SRCDIR"/samples/*/*/manifest.json; do
	[ -f "$m" ] || continue
	dir=$(dirname "$m")
	ls "$dir"/*.blktrace.0 >/dev/null 2>&1 || continue
	sets=()
	for f in "$dir"/*.blktrace.0; do sets+=(-i "$(basename "${f%.blktrace.0}")"); done
	same "$dir" -D "$dir" "${sets[@]}" -- "$dir"
	nsamples=$((nsamples + 1))
done
[ "$nsamples" -ge 3 ] || fail "only $nsamples sample runs found"
cp -r "$SRCDIR/samples/ext4" ext4
same "set" -i ext4/loop0 -- ext4/loop0
same "set member" -i ext4/loop0 -- ext4/loop0.blktrace.1
(cd ext4 && blkparse -i loop0 >../bp.txt 2>/dev/null && "$IOTAPE" export loop0 -f blkparse -o ../io.txt)
cmp -s bp.txt io.txt || fail "relative set name differs"

# generated: everything the model has, and everything --extras adds, with lost records
mkdir g
blkgen -o g --ios 20000 --seed 5 --devices 3 --cpus 4 --merge-pct 40 --drop-pct 2 --extras >/dev/null
same "generated" -i g/trace -- g/trace
grep -q " A " io.txt && grep -q " X " io.txt && grep -q " m   N blkgen message" io.txt &&
	grep -q "(null)" io.txt && grep -q "late-process-n" io.txt && grep -q ") \[" io.txt ||
	fail "the generated trace lacks a remap, split, message, unnamed pid or PC request"
grep -q "^ PC Reads Queued:" io.txt || fail "no PC summary"
grep -q "discarded traces containing low-level device driver" io.txt || fail "no driver-data note"
# big enough for MiB in the summaries, and a PROCESS note past the first batch of 512
mkdir big
blkgen -o big --ios 60000 --seed 11 --cpus 2 --extras >/dev/null
same "big" -i big/trace -- big/trace
grep -q "MiB" io.txt || fail "no MiB in the big trace's summary"

# version 8, the other byte order, gzip and zstd read as the plain version 7 set reads in
# blkparse
mkdir v7
blkgen -o v7 --ios 3000 --seed 9 --devices 2 --cpus 3 --extras >/dev/null
(cd v7 && blkparse -i trace >../v7.txt 2>/dev/null) || fail "blkparse v7"
for variant in --v8 --swap --gzip zstd; do
	rm -rf var && mkdir var
	if [ "$variant" = zstd ]; then
		blkgen -o var --ios 3000 --seed 9 --devices 2 --cpus 3 --extras >/dev/null
		zstd -q --rm var/trace.blktrace.* || fail "zstd"
	else
		blkgen -o var --ios 3000 --seed 9 --devices 2 --cpus 3 --extras "$variant" >/dev/null
	fi
	(cd var && "$IOTAPE" export trace -f blkparse -o ../var.txt) || fail "export $variant"
	cmp -s v7.txt var.txt || fail "$variant differs from the v7 set's blkparse text"
done

# a run directory of two sets, each with its own CPUs
mkdir two
blkgen -o two -n sda --ios 2000 --seed 3 --cpus 2 --extras >/dev/null
blkgen -o two -n sdb --ios 1500 --seed 4 --cpus 3 --devices 2 >/dev/null
same "two sets" -D two -i sda -i sdb -- two

# records whose CPU field names another CPU than their file's: blkparse drops them, though they
# take their place in its batch of 512 (at 95 %, batches that keep nothing end a file early)
for pct in 4 95; do
	rm -rf f && mkdir f
	blkgen -o f --ios 6000 --seed "$pct" --cpus 3 --extras --foreign-pct "$pct" >/dev/null
	same "foreign $pct%" -i f/trace -- f/trace
done

# many random traces
for seed in $(seq 100 139); do
	rm -rf r && mkdir r
	blkgen -o r --ios $((200 + seed * 13)) --seed "$seed" --devices $((seed % 3 + 1)) \
		--cpus $((seed % 6 + 1)) --merge-pct $((seed % 70)) --depth $((seed % 8 + 1)) \
		--drop-pct $((seed % 3)) --extras >/dev/null
	same "random $seed" -i r/trace -- r/trace
done

# grouped numbers: blkparse asks for the en_US locale; build one privately (LOCPATH)
if command -v localedef >/dev/null && [ -f /usr/share/i18n/locales/en_US ]; then
	mkdir loc
	localedef -i en_US -f ISO-8859-1 loc/en_US 2>/dev/null || true
	[ -f loc/en_US/LC_NUMERIC ] || fail "localedef made no en_US locale"
	# glibc 2.36's newlocale() never frees its list of LOCPATH's directories (34 bytes here,
	# at every call: libp11-kit's constructor makes one in any process that loads it, the
	# summaries another): that one allocation is suppressed, every other leak still counts
	printf 'leak:__argz_add_sep\n' >lsan.supp
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$TMP/lsan.supp" LOCPATH=$TMP/loc \
		same "en_US" -i big/trace -- big/trace
	grep -Eq "[0-9],[0-9]{3}" io.txt || fail "no grouped number with en_US"
else
	skip "no localedef or en_US locale source (Debian package locales)"
fi

# errors: no format, a single merged file (blkparse reads those from stdin only)
"$IOTAPE" export g/trace 2>err && fail "no --format accepted"
grep -q "missing --format" err || fail "no message for a missing --format: $(cat err)"
blkparse -i g/trace -d dump.bin -O >/dev/null 2>&1
"$IOTAPE" export dump.bin -f blkparse 2>err && fail "a merged dump was accepted"
grep -q "stdin" err || fail "no reason given for the merged dump: $(cat err)"
"$IOTAPE" export nosuch -f blkparse 2>err && fail "a missing run was accepted"
echo "export_blkparse: ok"
