#!/usr/bin/env bash
# Samples that interrupt the kernel: kernel stacks by stack id, the user
# stack from the task's saved registers, and the kernel symbols they need.
. "$(dirname "$0")/lib.sh"

"$TRECORD" -q -F 499 -o "$T/k.tr" -- dd if=/dev/zero of=/dev/null bs=64k count=400000 2>"$T/err" &
rec=$!
# The oracle: /proc/kallsyms while trecord records, so that it has the
# symbols of the BPF programs (our own among them) that samples can
# interrupt; they are gone once trecord exits.
for _ in $(seq 100); do
	grep -q '_trec_sample[[:space:]]' /proc/kallsyms && break
	sleep 0.1
done
cp /proc/kallsyms "$T/kallsyms"
wait "$rec"
check "kernel: trecord exits 0" [ "$?" = 0 ]
check "kernel: the kallsyms oracle has trecord's BPF programs" grep -q '_trec_sample' "$T/kallsyms"
dump "$T/k.tr" >"$T/dump" || { fail "kernel: recording reads back"; exit 1; }
$TRCHECK "$T/dump" >"$T/stats"
v() { stat_of "$1" <"$T/stats"; }
check "kernel: samples with kernel stacks" [ "$(v kernel_samples)" -gt 10 ]
# S time pid tid cpu comm nkernel nuser frames... k/addr...
check "kernel: kernel frames are kernel addresses" \
	[ -z "$(awk '$1 == "S" { for (i = 9; i <= NF; i++) if ($i ~ /^k\// && $i !~ /^k\/ffff/) print }' "$T/dump")" ]
check "kernel: kernel-mode samples still have the user stack" \
	[ "$(awk '$1 == "S" && $7 > 0 && $8 >= 3' "$T/dump" | wc -l)" -gt 5 ]
# bpf_get_stackid fails on a hash bucket another stack holds (-EEXIST):
# such a sample's kernel frames are copied into the trace instead. Rare,
# counted, and never more than 1% of the kernel-mode samples.
kfail=$(v metric_KERNEL_STACK_FAILED); ks=$(v kernel_samples)
check "kernel: failed stack ids are rare (${kfail:-none} of $ks)" \
	[ $((${kfail:-999999} * 100)) -le "${ks:-0}" ]
check "kernel: a KSYMS record" grep -q '^K ' "$T/dump"
# Every kernel frame falls in a recorded symbol: the symbol at or below it
# and the next one above it are both in the record (the subset is exact).
# BPF programs ([bpf]) come and go: those of other recorders on the machine
# can be loaded or gone between the oracle's copy and trecord's own read,
# so a frame in one is only checked to be in a recorded bpf_* symbol.
awk '$1 == "KS" { print $2, $4, $5 }' "$T/dump" | sort -u >"$T/syms"
awk '$1 == "S" { for (i = 9; i <= NF; i++) if ($i ~ /^k\//) print substr($i, 3) }' "$T/dump" | sort -u >"$T/addrs"
missing=$(python3 - "$T/syms" "$T/addrs" "$T/kallsyms" <<'PY'
import bisect, sys
recsyms = {}
for l in open(sys.argv[1]):
    a, name, mod = l.split()
    recsyms.setdefault(int(a, 16), []).append((name, mod))
rec = sorted(recsyms)
mods = {}
for l in open(sys.argv[3]):
    f = l.split()
    if f[1] in "tTwW":
        mods[int(f[0], 16)] = f[3] if len(f) > 3 else ""
allsyms = sorted(mods)
bad = 0
for a in (int(l, 16) for l in open(sys.argv[2])):
    j = bisect.bisect_right(rec, a) - 1
    named = recsyms[rec[j]] if j >= 0 else []
    i = bisect.bisect_right(allsyms, a) - 1
    if any(m == "bpf" for _, m in named) or (i >= 0 and mods[allsyms[i]] == "[bpf]"):
        bad += not any(n.startswith("bpf_") and m == "bpf" for n, m in named)
        continue
    want = [allsyms[i]] + ([allsyms[i + 1]] if i + 1 < len(allsyms) else [])
    bad += any(w not in recsyms for w in want) if i >= 0 else 1
print(bad)
PY
)
check "kernel: every kernel frame's symbol and its end are recorded ($missing missing)" [ "$missing" = 0 ]
check "kernel: only needed symbols are recorded (< 5000)" [ "$(wc -l <"$T/syms")" -lt 5000 ]

# treport names every kernel frame from that subset alone (it never reads
# the local /proc/kallsyms, so this is what another machine shows): the
# name must be one of /proc/kallsyms' names at the text symbol holding the
# frame (the call, pc - 1, above the leaf) and the offset must match; a
# frame in a BPF program ([bpf], see above) must be named bpf_*.
"$TREPORT" --perf-script --symbol-source=embedded "$T/k.tr" >"$T/script" 2>"$T/script.err"
named=$(python3 - "$T/script" "$T/kallsyms" <<'PY'
import bisect, re, sys
names, bpf = {}, set()
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) >= 3 and f[1] in ("t", "T", "w", "W") and int(f[0], 16):
        names.setdefault(int(f[0], 16), set()).add(f[2])
        if f[3:] == ["[bpf]"]:
            bpf.add(int(f[0], 16))
addrs = sorted(names)
frame = re.compile(r"^\t\s*([0-9a-f]+) (.*) \((.*)\)$")
good = bad = 0
leaf = True
for l in open(sys.argv[1]):
    if not l.startswith("\t"):
        leaf = True
        continue
    m = frame.match(l.rstrip("\n"))
    first, leaf = leaf, False
    if not m or not m.group(1).startswith("ffff"):
        continue
    a = int(m.group(1), 16)
    i = bisect.bisect_right(addrs, a if first else a - 1) - 1
    sym, _, off = m.group(2).rpartition("+0x")
    if m.group(3) == "[bpf]" or (i >= 0 and addrs[i] in bpf):
        ok = m.group(3) == "[bpf]" and sym.startswith("bpf_")
    else:
        ok = i >= 0 and sym in names[addrs[i]] and int(off or "-1", 16) == a - addrs[i]
    good += ok
    bad += not ok
    if not ok and bad <= 3:
        print("misnamed:", l.strip(), "want", sorted(names[addrs[i]]) if i >= 0 else None, hex(a - addrs[i]) if i >= 0 else "", file=sys.stderr)
print(good, bad)
PY
)
read -r good bad <<<"$named"
check "kernel: treport names all ${good:-0} kernel frames as /proc/kallsyms does (${bad:-?} wrong)" \
	[ "${good:-0}" -gt 10 -a "${bad:-1}" = 0 ]
