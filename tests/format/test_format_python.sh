#!/usr/bin/env bash
# The independent Python reader (tests/format/read_tr.py, written from
# FORMAT.md alone) reads files libtrecformat wrote and checks every field
# against the values the writer was given.
source "$(dirname "$0")/../lib/common.sh"
here=$TREC_ROOT/tests/format
# (not mktemp_dir: its EXIT trap fires when $(...) ends, removing the dir at once)
tmp=$(mktemp -d /tmp/trec-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Debian's python3 has python3-zstandard; pyenv's python3 usually has not.
py=
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import zstandard' 2>/dev/null; then py=$p; break; fi
done
if [ -z "$py" ]; then
	command -v zstd >/dev/null || skip_all "neither python3-zstandard nor the zstd CLI"
	py=python3
	export TREC_PY_ZSTD=cli
fi
echo "using $py (zstd via ${TREC_PY_ZSTD:-zstandard module})"

make -s -C "$TREC_ROOT" build/libtrecformat.a >/dev/null || { fail "build libtrecformat.a"; exit 1; }
cc -O1 -g -std=gnu11 -D_GNU_SOURCE -I"$TREC_ROOT/format" -I"$TREC_ROOT/bpf" -I"$TREC_ROOT/tests/unit" \
	-o "$tmp/write_sample" "$here/write_sample.c" "$TREC_ROOT/build/libtrecformat.a" -lzstd -lz ||
	{ fail "build write_sample"; exit 1; }

for chunk in 0 300; do
	"$tmp/write_sample" "$tmp/c$chunk.tr" "$tmp/c$chunk.json" $chunk || { fail "write_sample $chunk"; continue; }
	echo "--- chunk size $chunk"
	"$py" "$here/read_tr.py" "$tmp/c$chunk.tr" --expect "$tmp/c$chunk.json" ||
		fail "python reader exits 0 on chunk size $chunk"
done
nchunks=$("$py" "$here/read_tr.py" "$tmp/c300.tr" | "$py" -c '
import json, sys
print(len({json.loads(l).get("chunk_offset") for l in list(sys.stdin)[1:]}))')
check "python reader: 300-byte chunks give several chunks ($nchunks)" test "$nchunks" -gt 3

# A cut-off file: the complete chunks, then the truncation warning.
size=$(stat -c %s "$tmp/c300.tr")
head -c $((size - 7)) "$tmp/c300.tr" > "$tmp/cut.tr"
"$py" "$here/read_tr.py" "$tmp/cut.tr" > "$tmp/cut.out" 2> "$tmp/cut.err"
check "python reader: truncated file reads with a warning" grep -q "file truncated at offset" "$tmp/cut.err"
full=$("$py" "$here/read_tr.py" "$tmp/c300.tr" | wc -l)
cut=$(wc -l < "$tmp/cut.out")
check "python reader: truncated file keeps the complete chunks ($cut of $full lines)" \
	test "$cut" -lt "$full" -a "$cut" -gt 1

# A chunk duplicated (FORMAT.md §8): warned and skipped.
"$py" - "$tmp/c300.tr" "$tmp/dup.tr" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 256 + 32 + struct.unpack_from("<I", d, 256 + 8)[0]  # the second chunk
n = 32 + struct.unpack_from("<I", d, off + 8)[0]
open(sys.argv[2], "wb").write(d[:off + n] + d[off:])
EOF
"$py" "$here/read_tr.py" "$tmp/dup.tr" > "$tmp/dup.out" 2> "$tmp/dup.err"
check "python reader: a duplicated chunk is warned and skipped" \
	test "$(grep -c 'skipping the duplicate' "$tmp/dup.err")" = 1 -a "$(wc -l < "$tmp/dup.out")" = "$full"

if [ -z "${TREC_PY_ZSTD:-}" ] && command -v zstd >/dev/null; then
	echo "--- zstd CLI fallback"
	TREC_PY_ZSTD=cli "$py" "$here/read_tr.py" "$tmp/c300.tr" --expect "$tmp/c300.json" > "$tmp/cli.out"
	rc=$?
	sed 's/python reader:/python reader (zstd CLI):/' "$tmp/cli.out"
	[ "$rc" = 0 ] || fail "python reader (zstd CLI) exits 0"
fi
exit 0
