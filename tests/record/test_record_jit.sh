#!/usr/bin/env bash
# JIT code names end to end, without the frame-pointer unwinder: the
# jitloop workload spins in a leaf loop it copied into anonymous executable
# memory and names it in /tmp/perf-PID.map or a jitdump; trecord embeds the
# names (JITSYMS), treport names the leaf frame with them after the files
# are gone. Also: a map written at exit is read at the exit, time decides
# between two loads over one range, a file that shows up after the code
# ran is found, and files perf would refuse are refused.
. "$(dirname "$0")/lib.sh"

JL=$WORKLOADS/jitloop

# start NAME ARGS...: trecord -- jitloop ARGS in the background, in $T;
# sets PID (the workload's) and REC (trecord's).
start() {
	local name=$1
	shift
	(cd "$T" && exec "$TRECORD" ${JIT_TEST_V:-} -F 499 -f -o "$T/$name.tr" -- "$@") >"$T/$name.out" 2>"$T/$name.err" &
	REC=$!
	BG_PIDS+=("$REC")
	PID=
	for _ in $(seq 100); do
		PID=$(sed -n 's/^pid \([0-9]*\) .*/\1/p' "$T/$name.out" 2>/dev/null)
		[ -n "$PID" ] && break
		sleep 0.05
	done
}

# leaf_share NAME FUNC DSO: percent of the workload's samples whose leaf is FUNC in DSO.
leaf_share() {
	"$TREPORT" --perf-script "$T/$1.tr" 2>/dev/null | awk -v pid="$PID" -v f="$2" -v dso="($3)" '
		/cpu-clock:/ { split($2, p, "/"); mine = p[1] == pid; leaf = 1; next }
		leaf && mine { n++; if ($2 ~ "^" f "\\+0x" && $3 == dso) hit++ }
		{ leaf = 0 }
		END { print n ? int(100 * hit / n) : 0 }'
}

# ---- a perf map written at start (V8 --perf-basic-prof, CPython -X perf)
start pm "$JL" 2 perfmap
wait "$REC"
check "jit: perf map recording succeeds" [ $? = 0 ]
dump "$T/pm.tr" >"$T/pm.dump"
check "jit: one JITSYMS record: perf map, filtered, its path" \
	grep -q "^J [0-9]* $PID 1 1 0 2 /tmp/perf-$PID.map$" "$T/pm.dump"
check "jit: only the sampled code's lines are embedded (not never_sampled)" \
	bash -c "grep '^JE' '$T/pm.dump' | awk '{print \$NF}' | tr '\n' ' ' | grep -qx 'stale_entry jit_hot_loop '"
rm -f "/tmp/perf-$PID.map" # the report reads the recording only
share=$(leaf_share pm jit_hot_loop "/tmp/perf-$PID.map")
check "jit: perf-script names the leaf from the map, dso as perf shows it ($share% >= 90%)" \
	[ "$share" -ge 90 ]
check "jit: the last line covering the pc wins (no stale_entry frames)" \
	bash -c "! '$TREPORT' --perf-script '$T/pm.tr' | grep -q stale_entry"
n=$("$TREPORT" --folded "$T/pm.tr" | awk '/;jit_hot_loop( |;)/ { n += $NF } END { print n + 0 }')
total=$("$TREPORT" --folded "$T/pm.tr" | awk '{ n += $NF } END { print n + 0 }')
check "jit: folded stacks name the frame ($n of $total samples)" [ "$n" -ge $((total * 8 / 10)) ]

# ---- a perf map written at exit (HotSpot -XX:+DumpPerfMapAtExit), the
# process exiting mid-recording: read after its exit, not at the end
start ex sh -c "'$JL' 1 perfmap-at-exit; sleep 3"
wait "$REC"
dump "$T/ex.tr" >"$T/ex.dump"
jt=$(awk '$1 == "J" { print $2; exit }' "$T/ex.dump")
end=$(awk '$1 == "Z" { print $3 }' "$T/ex.dump")
check "jit: a map written at exit is read at the exit, before the end ($jt < $end - 1s)" \
	[ -n "$jt" -a -n "$end" -a "${jt:-0}" -lt $((${end:-0} - 1000000000)) ]
share=$(leaf_share ex jit_hot_loop "/tmp/perf-$PID.map")
check "jit: ... and names the frames ($share%)" [ "$share" -ge 90 ]
rm -f "/tmp/perf-$PID.map"

# ---- jitdump (V8 --perf-prof, the JVMTI agent): two loads over one range
start jd "$JL" 1 phases "$T"
wait "$REC"
dump "$T/jd.tr" >"$T/jd.dump"
check "jit: one JITSYMS record: jitdump, filtered, the mapped path" \
	grep -q "^J [0-9]* $PID 2 1 0 2 $T/jit-$PID.dump$" "$T/jd.dump" ||
	{ grep '^J ' "$T/jd.dump" | head -3; grep -i 'jit\|dump' "$T/jd.err" | tail -12; }
rm -f "$T/jit-$PID.dump"
"$TREPORT" --perf-script "$T/jd.tr" >"$T/jd.script"
p1=$(leaf_share jd jit_phase1 "$T/jitted-$PID-1.so")
p2=$(leaf_share jd jit_phase2 "$T/jitted-$PID-2.so")
check "jit: jitdump names as perf inject --jit does (jit_phase1 $p1%, jit_phase2 $p2%)" \
	[ "$p1" -ge 35 -a "$p2" -ge 35 -a $((p1 + p2)) -ge 90 ]
# the later load covers the first code too: only time tells them apart
order=$(awk '/cpu-clock:/ { t = $4 } /jit_phase[12]\+/ { print t, $2 }' "$T/jd.script" |
	sort -n | awk '{ sub(/\+.*/, "", $2); if ($2 != last) { s = s $2 " "; last = $2 } } END { print s }')
check "jit: each sample named by the load in force at its time ($order)" \
	[ "$order" = "jit_phase1 jit_phase2 " ]
if command -v go >/dev/null; then
	"$TREPORT" --pprof -o "$T/jd.pb.gz" "$T/jd.tr"
	# jitloop's debug info: line 10 for the loop's first 4 bytes, 11 from
	# there; where the timer lands in the loop depends on the CPU model.
	off=$(grep -o 'jit_phase1+0x[0-9a-f]*' "$T/jd.script" | sort | uniq -c | sort -rn |
		awk 'NR == 1 { sub(/.*\+0x/, "", $2); print $2 }')
	off=$((16#${off:-0}))
	line=$([ "$off" -lt 4 ] && echo 10 || echo 11)
	check "jit: pprof has the jitdump line (jit_phase1 /src/jitloop.js:$line at most samples' offset $off)" \
		bash -c "go tool pprof -raw '$T/jd.pb.gz' 2>/dev/null | grep -q 'jit_phase1 /src/jitloop.js:$line'"
fi

# ---- a JIT file that shows up after the code ran: a sync of the maps in
# between saw the code only (its samples are then never "unknown", so BPF
# never reports the pid again); trecord re-reads such processes' maps on a
# slow timer until their dump is mapped or their perf map exists
start jl "$JL" 2 jitdump-late "$T"
wait "$REC"
dump "$T/jl.tr" >"$T/jl.dump"
check "jit: a jitdump mapped after the code ran: one JITSYMS record" \
	grep -q "^J [0-9]* $PID 2 1 0 1 $T/jit-$PID.dump$" "$T/jl.dump"
share=$(leaf_share jl jit_hot_loop "$T/jitted-$PID-1.so")
check "jit: ... names the frames ($share% >= 60%)" [ "$share" -ge 60 ]
found=$(metric "$T/jl.tr" JIT_FILES_FOUND_LATE)
check "jit: ... found by a re-read of the maps (JIT_FILES_FOUND_LATE $found)" [ "${found:-0}" -ge 1 ]
rm -f "$T/jit-$PID.dump"
start pl "$JL" 2 perfmap-late
wait "$REC"
check "jit: a perf map written after the code ran: one JITSYMS record" \
	grep -q "^J [0-9]* $PID 1 1 0 2 /tmp/perf-$PID.map$" <(dump "$T/pl.tr")
share=$(leaf_share pl jit_hot_loop "/tmp/perf-$PID.map")
check "jit: ... names the frames ($share% >= 60%)" [ "$share" -ge 60 ]
found=$(metric "$T/pl.tr" JIT_FILES_FOUND_LATE)
check "jit: ... found by a re-read, which then stops (JIT_FILES_FOUND_LATE $found)" \
	[ "${found:-0}" = 1 ]
rm -f "/tmp/perf-$PID.map"

# ---- files perf would refuse, and damaged ones
# refuse NAME WHAT CMD: jitloop names its code, CMD replaces the map while it runs.
refuse() {
	local name=$1 what=$2 cmd=$3
	start "$name" "$JL" 2 perfmap
	for _ in $(seq 100); do [ -e "/tmp/perf-$PID.map" ] && break; sleep 0.05; done
	(eval "$cmd")
	wait "$REC"
	check "jit: $what: the recording is fine" reads_back "$T/$name.tr"
	check "jit: $what: nothing embedded" bash -c "! '$TRDUMP' '$T/$name.tr' | grep -q '^JE'"
	rm -f "/tmp/perf-$PID.map"
}
# shellcheck disable=SC2016
refuse owner "owned by another user" 'chown 65534 "/tmp/perf-$PID.map"'
check "jit: owned by another user: one warning" \
	grep -q "perf-$PID.map: not owned by the process's user or root, ignoring it" "$T/owner.err"
echo "1000 10 not_for_you" >"$T/secret.map"
refuse symlink "a symlink" 'ln -sf "$T/secret.map" "/tmp/perf-$PID.map"'
refuse fifo "a FIFO (no wait)" 'rm -f "/tmp/perf-$PID.map"; mkfifo "/tmp/perf-$PID.map"'
check "jit: a FIFO: one warning" grep -q "perf-$PID.map: not a regular file, ignoring it" "$T/fifo.err"

start bad "$JL" 2 perfmap
for _ in $(seq 100); do [ -e "/tmp/perf-$PID.map" ] && break; sleep 0.05; done
{ printf 'zz 10 bad hex\n1000 ffffffffffffffffff huge\n'; head -c 100000 /dev/zero | tr '\0' x; echo; } \
	>>"/tmp/perf-$PID.map"
wait "$REC"
check "jit: malformed lines: counted in the record (3)" \
	grep -q "^J [0-9]* $PID 1 1 3 2 " <(dump "$T/bad.tr")
check "jit: malformed lines: one warning naming the first" \
	grep -q "perf-$PID.map: 3 malformed lines ignored (first: line 4: bad start address)" "$T/bad.err"
share=$(leaf_share bad jit_hot_loop "/tmp/perf-$PID.map")
check "jit: malformed lines: the good ones still name the frames ($share%)" [ "$share" -ge 90 ]
rm -f "/tmp/perf-$PID.map"

# ---- HotSpot: -XX:+DumpPerfMapAtExit writes "0x%016lx 0x%016lx name" lines at exit
if command -v javac >/dev/null && command -v java >/dev/null; then
	cat >"$T/Hot.java" <<'JAVA'
public class Hot {
    static long leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
    public static void main(String[] a) {
        long end = System.currentTimeMillis() + 2500, x = 0;
        while (System.currentTimeMillis() < end) x += leaf(100000);
        System.out.println(x > 0 ? "" : "x");
    }
}
JAVA
	javac -d "$T" "$T/Hot.java"
	start java java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp "$T" Hot
	wait "$REC"
	jpid=$(dump "$T/java.tr" | awk '$1 == "J" { print $3; exit }')
	n=$("$TREPORT" --folded "$T/java.tr" | awk '/;long Hot.leaf\(long\)( |;)/ { n += $NF } END { print n + 0 }')
	total=$("$TREPORT" --folded "$T/java.tr" | awk '{ n += $NF } END { print n + 0 }')
	check "jit: HotSpot DumpPerfMapAtExit: Hot.leaf named ($n of $total samples)" \
		[ -n "$jpid" -a "$n" -ge $((total / 2)) ]
	rm -f "/tmp/perf-$jpid.map"
else
	echo "SKIP: no JDK: no HotSpot check"
fi

# ---- Node (V8): --perf-basic-prof (perf map) and --perf-prof (jitdump)
command -v node >/dev/null || { echo "SKIP: node is not installed: no V8 checks"; exit 0; }
cat >"$T/hot.js" <<'JS'
function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003; return s; }
function mid(n) { return leaf(n) + 1; }
const end = Date.now() + 2000;
let x = 0;
while (Date.now() < end) x += mid(100000);
JS
# node_share NAME DSO_REGEX: percent of node's samples whose leaf is JS leaf() in a DSO matching
node_share() {
	"$TREPORT" --perf-script "$T/$1.tr" 2>/dev/null | awk -v dso="$2" '
		/cpu-clock:/ { mine = $1 == "node"; leaf = 1; next }
		leaf && mine { n++; if ($0 ~ "JS:[*^~]?leaf .*hot[.]js:1:[0-9]+[+]0x[0-9a-f]+ [(]" dso "[)]$") hit++ }
		{ leaf = 0 }
		END { print n ? int(100 * hit / n) : 0 }'
}
for mode in basic prof; do
	start "node-$mode" node "--perf-$([ $mode = basic ] && echo basic-)prof" "$T/hot.js"
	wait "$REC"
	npid=$(dump "$T/node-$mode.tr" | awk '$1 == "J" { print $3; exit }')
	# with an empty delta cache (tests/run.sh) most of node's samples wait
	# for its deltas: the files are read once they are written, not before
	def=$(metric "$T/node-$mode.tr" DEFERRED_RESUMED)
	if [ $mode = basic ]; then
		share=$(node_share "node-$mode" "/tmp/perf-$npid[.]map")
		check "jit: node --perf-basic-prof: JS leaf() named from the perf map ($share% of node's samples, ${def:-0} deferred)" \
			[ -n "$npid" -a "$share" -ge 50 ]
	else
		share=$(node_share "node-$mode" "$T/jitted-$npid-[0-9]+[.]so")
		check "jit: node --perf-prof: JS leaf() named from the jitdump ($share% of node's samples, ${def:-0} deferred)" \
			[ -n "$npid" -a "$share" -ge 50 ]
	fi
	# what was embedded and what the leaf frames were, when they were not named
	[ "$share" -ge 50 ] || {
		dump "$T/node-$mode.tr" | awk '$1 == "J" { print "  " $0 } $1 == "JE" { n++ } END { print "  JE:", n + 0 }'
		"$TREPORT" --perf-script "$T/node-$mode.tr" 2>/dev/null |
			awk '/cpu-clock:/ { leaf = $1 == "node"; next } leaf { print "  leaf:", $1, $2, $3; leaf = 0 }' |
			sort | uniq -c | sort -rn | head -5
		grep -v '^pid ' "$T/node-$mode.err" | tail -5
	}
	rm -f "/tmp/perf-$npid.map" "$T/jit-$npid.dump"
done
