#!/usr/bin/env bash
# trecord's Perl offsets table against the installed Perl's own headers:
# tests/perl/offsets_probe.c compiled on perl.h (offsetof, sizeof and the
# constants) must print what tests/perl/offsets_table.c prints from
# record/interp/perl/perl_offsets.c and bpf/perl_types.h for that version.
# A changed field (another Perl build, a new version) fails here before it
# walks garbage. Also: trecord detects the perl binary (its symbols).
source "$(dirname "$0")/../lib/common.sh"
PERL=/usr/bin/perl
[ -x "$PERL" ] || skip_all "no $PERL"
ccopts=$("$PERL" -MExtUtils::Embed -e ccopts 2>/dev/null) || skip_all "perl without ExtUtils::Embed"
core=$("$PERL" -MConfig -e 'print "$Config{archlibexp}/CORE"')
[ -f "$core/perl.h" ] || skip_all "perl's headers not installed ($core/perl.h)"
d=$(mktemp -d /tmp/trec-ploff.XXXXXX)
trap 'rm -rf "$d"' EXIT
ver=$("$PERL" -e 'printf "%vd", $^V')
read -r rev minor < <("$PERL" -e 'printf "%d %d", $^V =~ /^v?(\d+)\.(\d+)/')

# shellcheck disable=SC2086
if ! cc $ccopts -o "$d/probe" "$TREC_ROOT/tests/perl/offsets_probe.c" 2>"$d/cc.log"; then
	fail "perl $ver: the offsets probe compiles on perl.h"; sed 's/^/  | /' "$d/cc.log"; exit 1
fi
cc -std=gnu11 -I"$TREC_ROOT" -I"$TREC_ROOT/bpf" -o "$d/table" \
	"$TREC_ROOT/tests/perl/offsets_table.c" "$TREC_ROOT/record/interp/perl/perl_offsets.c" ||
	{ fail "perl $ver: the table printer compiles"; exit 1; }
"$d/probe" >"$d/probe.txt"
"$d/table" "$rev" "$minor" >"$d/table.txt"
if diff "$d/probe.txt" "$d/table.txt" >"$d/diff"; then
	pass "perl $ver: offsets table row equals perl.h ($(wc -l <"$d/probe.txt") fields and constants)"
else
	fail "perl $ver: offsets table row equals perl.h"; sed 's/^/  | /' "$d/diff"
fi
# The checker can fail: a table with one field off does not pass.
sed '2s/ [0-9]*$/ 9999/' "$d/table.txt" >"$d/mutant.txt"
if ! diff -q "$d/probe.txt" "$d/mutant.txt" >/dev/null; then
	pass "perl $ver: a wrong offset is told apart"
else
	fail "perl $ver: a wrong offset is told apart"
fi
