#!/usr/bin/env bash
# A short run (GOPCLN_FUZZ_SECONDS, default 5) of the .gopclntab parser's
# fuzz target (tests/fuzz/fuzz_gopclntab.c) on build/fuzz-gopclntab-corpus
# (an empty header and, with Go installed, the table of a Go tool) plus the
# test workload gostack's table (mode 1) and whole ELF file (mode 0). Any
# crash, leak, sanitizer report or timeout fails.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/fuzz.sh"

FUZZ_MAKE_EXTRA=build/fuzz-gopclntab-corpus/.stamp fuzz_prepare fuzz_gopclntab ".gopclntab parser"
cp "$TREC_ROOT"/build/fuzz-gopclntab-corpus/* "$tmp/seeds/"
gostack=$TREC_BUILD/workloads/gostack
[ -f "$gostack" ] || gostack=$TREC_ROOT/build/workloads/gostack
if [ -f "$gostack" ]; then
	{ printf '\0'; cat "$gostack"; } >"$tmp/seeds/gostack-elf"
	objcopy -O binary --only-section=.gopclntab "$gostack" "$tmp/tab" &&
		{ printf '\1'; cat "$tmp/tab"; } >"$tmp/seeds/gostack-table"
fi
fuzz_seeds_then_run ".gopclntab parser" "${GOPCLN_FUZZ_SECONDS:-5}" 4194304
exit 0
