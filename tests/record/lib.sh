# Sourced by tests/record/test_*.sh: real BPF recordings, so root only.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
: "${TREC_PLAIN_BUILD:=$TREC_ROOT/build}"

[ "$(id -u)" = 0 ] || skip_all "recording needs root (CAP_BPF, CAP_PERFMON)"
[ -x "$TRECORD" ] || { fail "trecord is built ($TRECORD)"; exit 1; }
build_workloads || { fail "workloads build"; exit 1; }

# (not mktemp_dir: its EXIT trap fires when $(...) ends, removing the dir at once)
T=$(mktemp -d /tmp/trec-record.XXXXXX)
BG_PIDS=()
cleanup() {
	for p in "${BG_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
# trdump: the test-only text dump of a recording (libtrecformat's reader).
TRDUMP=$T/trdump
cc -O1 -I"$TREC_ROOT/format" -o "$TRDUMP" "$TREC_ROOT/tests/record/trdump.c" \
	"$TREC_PLAIN_BUILD/libtrecformat.a" -lzstd -lz || { fail "trdump builds"; exit 1; }
TRCHECK="python3 $TREC_ROOT/tests/record/trcheck.py"

# dump FILE: the text dump, or fails.
dump() { "$TRDUMP" "$1"; }
# reads_back FILE: the whole file decodes.
reads_back() { "$TRDUMP" "$1" >/dev/null; }
# stat_of NAME < stats: the value of one key=value line.
stat_of() { sed -n "s/^$1=//p"; }

# func_arg BINARY FUNC [FILE_SUBSTR]: a trcheck --func argument with the
# function's ELF range from the symbol table.
func_arg() {
	local lo size
	# Also f.constprop.0 and the like, GCC's clones of f.
	read -r lo size < <(nm -S "$1" | awk -v f="$2" '$4 == f || index($4, f ".") == 1 { print $1, $2; exit }')
	[ -n "$lo" ] || { echo "no symbol $2 in $1" >&2; return 1; }
	printf -- '--func %s:%s:%s:%x' "${3:-$(basename "$1")}" "$2" "$lo" $((16#$lo + 16#$size))
}

# flag_when_loaded PID LOG PROG FLAG: waits (up to 60 s, or until PID, a
# trecord -v writing LOG, ends) for LOG to say PROG was loaded on first
# need, then makes FLAG: a script recorded by it waits for FLAG before the
# work a test checks, as interpreter unwinders take seconds to verify on a
# loaded machine.
flag_when_loaded() {
	for _ in $(seq 600); do
		grep -q "loaded $3 on first need" "$2" && break
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	touch "$4"
}
