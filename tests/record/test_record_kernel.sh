#!/usr/bin/env bash
# Samples that interrupt the kernel: kernel stacks by stack id, the user
# stack from the task's saved registers, and the kernel symbols they need.
. "$(dirname "$0")/lib.sh"

"$TRECORD" -q -F 499 -o "$T/k.tr" -- dd if=/dev/zero of=/dev/null bs=64k count=400000 2>"$T/err"
check "kernel: trecord exits 0" [ "$?" = 0 ]
dump "$T/k.tr" >"$T/dump" || { fail "kernel: recording reads back"; exit 1; }
$TRCHECK "$T/dump" >"$T/stats"
v() { stat_of "$1" <"$T/stats"; }
check "kernel: samples with kernel stacks" [ "$(v kernel_samples)" -gt 10 ]
# S time pid tid cpu comm nkernel nuser frames... k/addr...
check "kernel: kernel frames are kernel addresses" \
	[ -z "$(awk '$1 == "S" { for (i = 9; i <= NF; i++) if ($i ~ /^k\// && $i !~ /^k\/ffff/) print }' "$T/dump")" ]
check "kernel: kernel-mode samples still have the user stack" \
	[ "$(awk '$1 == "S" && $7 > 0 && $8 >= 3' "$T/dump" | wc -l)" -gt 5 ]
check "kernel: no failed stack ids" [ "$(v metric_KERNEL_STACK_FAILED)" = 0 ]
check "kernel: a KSYMS record" grep -q '^K ' "$T/dump"
# Every kernel frame falls in a recorded symbol: the symbol at or below it
# and the next one above it are both in the record (the subset is exact).
awk '$1 == "KS" { print $2 }' "$T/dump" | sort -u >"$T/syms"
awk '$1 == "S" { for (i = 9; i <= NF; i++) if ($i ~ /^k\//) print substr($i, 3) }' "$T/dump" | sort -u >"$T/addrs"
missing=$(python3 - "$T/syms" "$T/addrs" /proc/kallsyms <<'PY'
import bisect, sys
rec = sorted(int(l, 16) for l in open(sys.argv[1]))
allsyms = sorted({int(l.split()[0], 16) for l in open(sys.argv[3]) if l.split()[1] in "tTwW"})
bad = 0
for a in (int(l, 16) for l in open(sys.argv[2])):
    i = bisect.bisect_right(allsyms, a) - 1
    want = [allsyms[i]] + ([allsyms[i + 1]] if i + 1 < len(allsyms) else [])
    bad += any(w not in rec for w in want) if i >= 0 else 1
print(bad)
PY
)
check "kernel: every kernel frame's symbol and its end are recorded ($missing missing)" [ "$missing" = 0 ]
check "kernel: only needed symbols are recorded (< 5000)" [ "$(wc -l <"$T/syms")" -lt 5000 ]
