# Sourced by the archive tests: a workload with its own shared library,
# built in a temporary directory so the test may delete or rebuild it.
#   build_arcdemo DIR [CFLAGS...]   -> DIR/arcdemo, DIR/libarcdemo.so
#   arc_setup                       -> $d, removed at exit, with the workload built
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
set -o pipefail

arc_setup() {
	# Not mktemp_dir: its EXIT trap fires when the $(...) subshell ends.
	d=$(mktemp -d /tmp/trec-archive.XXXXXX)
	trap 'rm -rf "$d"' EXIT
	build_arcdemo "$d" || { fail "build the workload"; exit 1; }
}

build_arcdemo() {
	local dir=$1; shift
	cat > "$dir/libarcdemo.c" <<'C'
static volatile unsigned long arc_sink;
#ifdef VARIANT
#define arcdemo_lib_spin renamed_lib_spin
#endif
static inline __attribute__((always_inline)) unsigned long arcdemo_inline_step(unsigned long x)
{
	for (int i = 0; i < 256; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
__attribute__((noinline)) unsigned long arcdemo_lib_spin(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < n; i++)
		x ^= arcdemo_inline_step(x + i);
	arc_sink = x;
	return x;
}
C
	cat > "$dir/arcdemo.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef VARIANT
#define arcdemo_lib_spin renamed_lib_spin
#define arcdemo_main_loop renamed_main_loop
#endif
unsigned long arcdemo_lib_spin(unsigned long n);
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
__attribute__((noinline)) static unsigned long arcdemo_main_loop(double secs)
{
	unsigned long s = 0;
	double end = now() + secs;
	while (now() < end)
		s += arcdemo_lib_spin(2000);
	return s;
}
int main(int argc, char **argv)
{
	printf("%lu\n", arcdemo_main_loop(argc > 1 ? atof(argv[1]) : 1.0) & 1);
	return 0;
}
C
	cc -O2 -g -fomit-frame-pointer -fPIC -shared "$@" -o "$dir/libarcdemo.so" "$dir/libarcdemo.c" &&
	cc -O2 -g -fomit-frame-pointer "$@" -o "$dir/arcdemo" "$dir/arcdemo.c" \
		-L"$dir" -larcdemo -Wl,-rpath,"$dir"
}

# record OUT.tr [trecord options] -- command...: skips the test when trecord
# cannot sample here (no BPF), fails it on any other error.
record() {
	local out=$1; shift
	if ! "$TRECORD" -f -o "$out" "$@" 2> "$out.err"; then
		if grep -qiE 'bpf|permission|operation not permitted' "$out.err"; then
			cat "$out.err"
			skip_all "trecord cannot sample on this machine"
		fi
		cat "$out.err"
		return 1
	fi
}

build_id_of() {
	readelf -n "$1" | awk '/Build ID/ {print $3}'
}
