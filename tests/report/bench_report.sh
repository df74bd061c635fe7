#!/usr/bin/env bash
# treport speed and memory on a synthetic recording of N samples (default
# 1,000,000) over 1000 distinct stacks 5..150 frames deep with real busy
# addresses. Not part of make test:  bash tests/report/bench_report.sh [N]
source "$(dirname "$0")/../lib/common.sh"
n=${1:-1000000}
plain=${TREC_PLAIN_BUILD:-$TREC_ROOT/build}
build_workloads
d=$(mktemp_dir)
busy=$WORKLOADS/busy
bid=$(readelf -n "$busy" | awk '/Build ID/{print $3}')
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TREC_ROOT/format" -I"$TREC_ROOT/bpf" -o "$d/gen_tr" \
	"$TREC_ROOT/tests/report/gen_tr.c" "$plain/libtrecformat.a" -lzstd -lz
python3 - "$busy" "$bid" "$n" > "$d/spec" <<'PY'
import random, sys
busy, bid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
random.seed(1)
print("meta freq_hz 999\nfile 0x1111 %s %s" % (busy, bid))
print("ksym 0xffffffff81000000 T a\nksym 0xffffffff81001000 T b\nksyms 1")
per = max(1, n // 1000)
for s in range(1000):
    fr = ["u:0x1111:0x%x" % (0x1300 + random.randrange(0, 0x30))]
    fr += ["u:0x1111:0x1350:2"] * random.randrange(5, 150) + ["u:0x1111:0x10c0:2"]
    k = ["k:0xffffffff81000010", "k:0xffffffff81001010:2"] if s % 3 == 0 else []
    print("sample %d 42 %d 0 1 busy %s" % (1000000 * s, 42 + s % 8, " ".join(k + fr)))
    print("repeat %d" % (per - 1))
print("summary 0 %d %d 0 0" % (1000000 * 1000 + per * 1000000, per * 1000))
PY
"$d/gen_tr" "$d/bench.tr" < "$d/spec"
echo "recording: $(stat -c %s "$d/bench.tr") bytes, $n samples"
for o in --folded "" "--pprof -o $d/out.pb.gz" --perf-script; do
	# shellcheck disable=SC2086
	/usr/bin/time -f "treport ${o:-(summary)}: %e s, peak RSS %M KB" "$plain/treport" "$d/bench.tr" $o > /dev/null
done
