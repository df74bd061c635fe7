#!/usr/bin/env bash
# End to end: trecord records tests/perl/chain.pl (<main> -> top -> a
# method -> sort, whose C code calls a comparator block -> a 25-deep
# recursion -> a leaf loop) under Debian's perl, treport names its frames;
# in the steady part of the run >= 95% of samples (and of the samples in
# the leaf) must carry the whole Perl chain in order with the script's
# lines, interleaved with the native frames in their true order
# (tests/perl/check_stacks.py). The same for chain.pl run by a program
# embedding Perl through libperl.so (tests/perl/embed.c); and for C calling
# back into Perl: a signal handler interrupting a sort comparator sub
# (signals.pl), sort's own C code between cheap comparator calls
# (sortmerge.pl).
#
# trecord is the plain build, as for Python: with the sanitizer build the
# interpreter's stack deltas take a second or more to load, which is not
# what this test measures.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/interp_record.sh"
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord
PERL=/usr/bin/perl

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
[ -x "$PERL" ] || skip_all "no $PERL"
dir=$(mktemp -d /tmp/trec-plrec.XXXXXX)
trap 'rm -rf "$dir"' EXIT
script=$TREC_ROOT/tests/perl/chain.pl
ver=$("$PERL" -e 'printf "%vd", $^V')
out=$dir/chain.tr

interp_record "perl $ver" "$out" chain.pl "$PERL" "$script" 3 || exit 1
interp_perf_script "perl $ver" "$out" "$dir/chain.txt"
python3 "$TREC_ROOT/tests/perl/check_stacks.py" "$script" "$dir/chain.txt" 0.95 "perl $ver"

"$TREPORT" "$out" --folded >"$dir/chain.folded" 2>>"$dir/rep.log"
check "perl $ver: folded stacks name perl frames 'Package::sub (file.pl:line)'" \
	grep -q ';Worker::run (chain.pl:18);Perl_pp_sort;.*;Perl_runops_standard;main::descend (chain.pl:35);' \
	"$dir/chain.folded"
interp_readme_example "perl $ver" chain.pl "$dir/chain.folded"
# A code object first seen as the script exits can go undescribed when
# trecord reads its memory too late (a loaded machine): allow 1 sample in 200.
read -r undesc total < <(awk '{ n = $NF; t += n } /(^|;)\[perl 0x/ { u += $NF } END { print u + 0, t + 0 }' "$dir/chain.folded")
check "perl $ver: perl frames have descriptions ($undesc of $total samples without)" \
	test "$total" -gt 0 -a $((undesc * 200)) -le "$total"

interp_info "$out"
interp_code_check "perl $ver" descriptions PERL_CODE_WRITTEN PERL_ERRORS 1
missed=$(awk '$1 == "PERL_CODE_UNREADABLE" || $1 == "PERL_CODE_STALE" { m += $2 } END { print m + 0 }' "$dir/info")
check "perl $ver: frames without a description are counted ($undesc samples, $missed unread)" \
	test "$undesc" = 0 -o "$missed" -gt 0

# chain_share WHAT SCRIPT SECONDS SELECT CHAIN MIN: records SCRIPT, then
# of the samples whose folded stack matches SELECT, >= 95% (and at least
# MIN) must match CHAIN (extended regular expressions).
chain_share() {
	local what=$1 script=$2 secs=$3 select=$4 chain=$5 min=$6 name all good
	name=$(basename "$script" .pl)
	if ! "$TRECORD" -q -F 499 -o "$dir/$name.tr" -- "$PERL" "$script" "$secs" >"$dir/rec.log" 2>&1 ||
		! "$TREPORT" "$dir/$name.tr" --folded >"$dir/$name.folded" 2>>"$dir/rep.log"; then
		fail "perl $ver: trecord runs $name.pl"; sed 's/^/  | /' "$dir/rec.log"; return
	fi
	read -r all good < <(awk -v sel="$select" -v re="$chain" '$0 ~ sel { n = $NF; all += n; if ($0 ~ re) good += n }
		END { print all + 0, good + 0 }' "$dir/$name.folded")
	if [ "$all" -ge "$min" ] && [ $((good * 100)) -ge $((all * 95)) ]; then
		pass "perl $ver: $what: $good of $all samples show the whole chain"
	else
		fail "perl $ver: $what: $good of $all samples show the whole chain"
		grep -E "$select" "$dir/$name.folded" | grep -vE "$chain" | head -3 | cut -c1-400 | sed 's/^/  /'
	fi
}

# C calling back into Perl: a named sort comparator, and a signal handler
# (call_sv with G_EVAL on a stackinfo of its own) interrupting it. Every
# sample in the handler must show the whole chain, in order, with the
# native frames between the runs.
chain='Perl_runops_standard;<main> \(signals\.pl:[0-9]+\);main::sorter \(signals\.pl:21\);Perl_pp_sort;.*;'
chain+='Perl_runops_standard;main::by_spin \(signals\.pl:19\);main::spin \(signals\.pl:13\);'
chain+='.*Perl_call_sv;Perl_runops_standard;main::handler \(signals\.pl:17\)(;main::spin \(signals\.pl:1[234]\))?(;[^:]*)? [0-9]+$'
chain_share "signal handler under a sort comparator" "$TREC_ROOT/tests/perl/signals.pl" 3 \
	'main::handler' "$chain" 10

# sort's own C code between comparator calls: its samples belong to the
# sub that called sort, at the sort's line, under <main>.
chain_share "sort's C code and a cheap comparator, samples in sort" \
	"$TREC_ROOT/tests/perl/sortmerge.pl" 2 'Perl_pp_sort' \
	'Perl_runops_standard;<main> \(sortmerge\.pl:17\);main::sorter \(sortmerge\.pl:12\);Perl_pp_sort' 50

# The interpreter in a shared library: a program embedding Perl through
# libperl.so (perlembed) runs chain.pl.
lib=$(ldconfig -p 2>/dev/null | awk '$1 ~ /^libperl\.so/ { print $NF; exit }')
# shellcheck disable=SC2046
if [ -n "$lib" ] && cc $("$PERL" -MExtUtils::Embed -e ccopts) -o "$dir/embed" \
	"$TREC_ROOT/tests/perl/embed.c" "$lib" -lm -lcrypt 2>"$dir/cc.log"; then
	if "$TRECORD" -q -F 499 -o "$dir/embed.tr" -- "$dir/embed" "$script" 3 >"$dir/rec.log" 2>&1 &&
		"$TREPORT" "$dir/embed.tr" --perf-script >"$dir/embed.txt" 2>>"$dir/rep.log"; then
		python3 "$TREC_ROOT/tests/perl/check_stacks.py" "$script" "$dir/embed.txt" 0.95 \
			"perl $ver in ${lib##*/}, embedded"
	else
		fail "perl $ver: trecord runs chain.pl in a libperl embedder"; sed 's/^/  | /' "$dir/rec.log"
	fi
else
	echo "note: no libperl embedder (libperl.so or perl.h missing): the shared-library case is not run"
fi
