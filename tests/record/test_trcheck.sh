#!/usr/bin/env bash
# trcheck.py, the recording tests' reader of trdump's text, on a crafted
# dump whose strings hold spaces (a mapping's path, a file's path, a comm,
# an exec's filename; trdump writes them as they are), and on a line it
# cannot take: a clear message, not a traceback. No recording: no root.
. "$(dirname "$0")/../lib/common.sh"

TRCHECK="python3 $TREC_ROOT/tests/record/trcheck.py"
D=$(mktemp_dir)
# pid 7 execs "/opt/My App/run me"; its one sample has a frame in
# "/opt/My App/lib x.so" (file 2a, vaddr 0x1100) and one in "[anon:v8 code]".
cat >"$D/spaces.dump" <<'DUMP'
E 1000 2 7 7 1 0 run me /opt/My App/run me
F 2a 4096 20 /opt/My App/lib x.so -
M 2000 7 3 400000-401000/0/2a/3ff000/opt/My App/lib x.so 7f0000-7f1000/0/0/0/[anon:v8 code] 500000-501000/0/0/0/-
S 900000000 7 8 0 Web Content 0 2 3/0/2a/1100 3/8/0/7f0010
X 3000 1000=SAMPLES_WRITTEN=1
Z 4000 5000 1 0 0 1
DUMP
out=$($TRCHECK "$D/spaces.dump" --warmup-ms 1 --func "My App/lib x:fn:1000:1200" 2>&1)
sed 's/^/  /' <<<"$out"
has() { grep -qxF "$1" <<<"$out"; }
check "trcheck: paths with spaces: read, one sample" has "samples=1"
check "trcheck: a comm with spaces" has "comms=Web Content"
check "trcheck: the frame lies in its mapping (spaced path)" has "frames_outside_mappings=0"
check "trcheck: ... and in the function of that file" has "samples_reaching_fn=1"
check "trcheck: a frame in a named anonymous mapping is JIT code" has "jit_samples=1"
check "trcheck: an exec filename with spaces" has "exec_filenames=/opt/My App/run me:1"
check "trcheck: the metrics" has "metric_SAMPLES_WRITTEN=1"
check "trcheck: the summary" has "summary_samples=1"

# a mapping count that does not fit the line: said, with the line
sed 's/^M 2000 7 3 /M 2000 7 4 /' "$D/spaces.dump" >"$D/bad.dump"
$TRCHECK "$D/bad.dump" >"$D/bad.out" 2>"$D/bad.err"
check "trcheck: a bad line: exit 1 (got $?)" [ "$?" = 1 ]
sed 's/^/  /' "$D/bad.err"
check "trcheck: ... one message, no traceback" [ "$(wc -l <"$D/bad.err")" = 1 ]
check "trcheck: ... naming the line" grep -q "bad.dump:3: mappings: 4 said, 3 found" "$D/bad.err"

# --pid: the sample facts of one process, the mappings of all read
sed 's/^S 900000000 7 /S 900000000 9 /' "$D/spaces.dump" >"$D/two.dump"
grep '^S ' "$D/spaces.dump" >>"$D/two.dump"
samples() { $TRCHECK "$D/two.dump" "$@" | sed -n 's/^samples=//p'; }
check "trcheck: --pid counts that process's samples only" [ "$(samples --pid 9)" = 1 ]
check "trcheck: ... all of them without it" [ "$(samples)" = 2 ]
