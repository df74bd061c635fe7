#!/usr/bin/env bash
# A measurement, not a test (run by hand: bash tests/archive/archive_levels.sh):
# what --archive=sampled costs and loses against --archive=full. Each
# workload is recorded at both levels (file size, archive build time in
# trecord's summary line); then the full recording is rearchived
# (tests/archive/rearchive.c) at full and at sampled, so the two levels are
# compared on exactly the same samples, with treport reading only the
# embedded symbols (--symbol-source=embedded: as if the binaries were gone);
# and once more with each sample's leaf made a runtime pc (rearchive
# --absolute). A sampled recording rearchived at sampled must match itself
# (trecord notes what rearchive notes). pprof is compared as
# `go tool pprof -raw` prints it.
# RUNS=N repeats everything N times.
source "$(dirname "$0")/../lib/common.sh"
build_workloads
make -s -C "$TREC_ROOT" all >/dev/null || exit 1
B=$TREC_ROOT/build
d=$(mktemp_dir)
inc="-I$TREC_ROOT -I$TREC_ROOT/format -I$TREC_ROOT/bpf -D_GNU_SOURCE"
cc -O1 -g -std=gnu11 -Wall -Wextra $inc -o "$d/rearchive" "$TREC_ROOT/tests/archive/rearchive.c" \
	"$B/librecord.a" "$B/libtrecformat.a" -ldw -lelf -lzstd -lz -lpthread || exit 1

embedded() { sed -n 's/.*embedded symbols of \([^)]*)\).*/\1/p' "$1"; }

report() { # NAME.tr -> NAME.folded, NAME.perf-script, NAME.pprof (go tool pprof -raw)
	local n=${1%.tr}
	for o in folded perf-script; do
		"$B/treport" --symbol-source=embedded --$o "$1" > "$n.$o" 2>/dev/null
	done
	"$B/treport" --symbol-source=embedded --pprof -o "$n.pb.gz" "$1" 2>/dev/null
	go tool pprof -raw "$n.pb.gz" > "$n.pprof" 2>/dev/null
}

measure() { # name command...
	local n=$1; shift
	for lvl in full sampled; do
		"$B/trecord" -F 999 --archive=$lvl -f -o "$d/$n.$lvl.tr" -- "$@" >/dev/null 2>"$d/$n.$lvl.err"
	done
	"$d/rearchive" "$d/$n.full.tr" "$d/$n.rf.tr" full 2>/dev/null &&
		"$d/rearchive" "$d/$n.full.tr" "$d/$n.rs.tr" sampled 2>"$d/$n.rs.err" &&
		"$d/rearchive" --absolute "$d/$n.full.tr" "$d/$n.af.tr" full 2>/dev/null &&
		"$d/rearchive" --absolute "$d/$n.full.tr" "$d/$n.as.tr" sampled 2>/dev/null &&
		"$d/rearchive" "$d/$n.sampled.tr" "$d/$n.ss.tr" sampled 2>/dev/null ||
		{ echo "$n: rearchive failed"; return; }
	for v in full sampled rf rs af as ss; do
		report "$d/$n.$v.tr"
	done
	printf '%s: full %d B (%s), sampled %d B (%s); %s\n' "$n" "$(stat -c %s "$d/$n.full.tr")" \
		"$(embedded "$d/$n.full.err")" "$(stat -c %s "$d/$n.sampled.tr")" \
		"$(embedded "$d/$n.sampled.err")" "$(sed -n 's/^rearchive: //p' "$d/$n.rs.err")"
	for o in folded perf-script pprof; do
		local a=same b=same c=same e=same
		cmp -s "$d/$n.full.$o" "$d/$n.rf.$o" || a=DIFFERENT
		cmp -s "$d/$n.sampled.$o" "$d/$n.ss.$o" || e=DIFFERENT
		cmp -s "$d/$n.rf.$o" "$d/$n.rs.$o" || b=DIFFERENT
		cmp -s "$d/$n.af.$o" "$d/$n.as.$o" || c=DIFFERENT
		printf '  %-11s rearchived as recorded: full %s, sampled %s; sampled as full: %s; with runtime-pc leaves: %s\n' \
			$o $a $e $b $c
		[ $b = same ] || diff "$d/$n.rf.$o" "$d/$n.rs.$o" | head -4 | sed 's/^/    /'
		[ $c = same ] || diff "$d/$n.af.$o" "$d/$n.as.$o" | head -4 | sed 's/^/    /'
	done
}

for run in $(seq "${RUNS:-1}"); do
	echo "== run $run"
	measure busy "$WORKLOADS/busy" 2
	measure inlines "$WORKLOADS/inlines" 2
	measure cxxexcept "$WORKLOADS/cxxexcept" 2
	measure threads "$WORKLOADS/threads" 2
	[ -x /usr/bin/python3 ] && measure python /usr/bin/python3 "$TREC_ROOT/tests/python/busy.py" 2
done
exit 0
