#!/usr/bin/env bash
# A deep stack alternating Python and C: each of 21 Python levels calls the
# next through map() (C), about 120 frames in all, like a chain of imports.
# Every transition used to cost two tail calls, so such stacks ended in
# MAX_TAIL_CALLS (258 of 274 samples); the Python program now walks the C
# between two runs itself (bpf/python_prog.h). Checked: no sample runs out
# of tail calls, and most samples of the leaf carry all 21 levels down to
# <module>.
source "$(dirname "$0")/../lib/common.sh"
TRECORD=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}/trecord

[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$TRECORD" ] && [ -x "$TREPORT" ] || skip_all "trecord/treport not built"
py=
for p in /usr/bin/python3.11 /root/.pyenv/versions/3.1[123]*/bin/python3.1[123]; do
	[ -x "$p" ] && { py=$p; break; }
done
[ -n "$py" ] || skip_all "no CPython 3.11+"
dir=$(mktemp -d /tmp/trec-pymixed.XXXXXX)
trap 'rm -rf "$dir"' EXIT

cat >"$dir/mixed.py" <<'EOF'
import time
def mixed_leaf():
    end = time.time() + 2
    n = 0
    while time.time() < end:
        n += 1
    return n
def mixed_level(n):
    if n == 0:
        return mixed_leaf()
    return list(map(mixed_level, [n - 1]))[0]
mixed_level(20)
EOF
"$TRECORD" -q -F 499 -o "$dir/m.tr" -- "$py" "$dir/mixed.py" >/dev/null 2>"$dir/rec.err"
check "mixed: $py recorded (exit $?)" test -s "$dir/m.tr"
"$TREPORT" --info "$dir/m.tr" >"$dir/info" 2>&1
mtc=$(awk '$1 == "MAX_TAIL_CALLS" && $2 ~ /^[0-9]+$/ { print $2; exit }' "$dir/info")
check "mixed: no sample ends in MAX_TAIL_CALLS (${mtc:-?})" [ "${mtc:-x}" = 0 ]
"$TREPORT" --folded --no-kernel "$dir/m.tr" >"$dir/m.folded" 2>/dev/null
read -r full leaf < <(awk '/mixed_leaf \(/ {
		leaf += $NF
		if ($0 ~ /<module> \(/ && gsub(/mixed_level \(/, "&") == 21) full += $NF
	} END { print full + 0, leaf + 0 }' "$dir/m.folded")
echo "samples in mixed_leaf: $leaf, with all 21 levels and <module>: $full"
check "mixed: samples of the leaf ($leaf)" [ "$leaf" -gt 100 ]
check "mixed: >= 90% of them carry the whole chain ($full of $leaf)" [ $((full * 10)) -ge $((leaf * 9)) ]
