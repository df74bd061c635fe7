#!/usr/bin/env bash
# chain_share.py on made-up perf script text, in every name form the
# runtimes give (no recording: runs in make test). The real runtimes are
# in pending_test_runtimes.sh.
. "$(dirname "$0")/../lib/common.sh"
python3 - "$TREC_ROOT/tests/runtimes" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import chain_share as cs

def sample(t, *frames, comm="x"):
    lines = ["%s 1/1 [000] %8.6f: 1001001 cpu-clock: " % (comm, t)]
    lines += ["\t%16x %s (%s)" % (i + 1, s, d) for i, (s, d) in enumerate(frames)]
    return lines + [""]

def check(name, ok):
    print("%s: chain_share: %s" % ("PASS" if ok else "FAIL", name))

K = ("do_syscall_64", "[kernel.kallsyms]")
MAP = "/tmp/perf-1.map"
node = sample(1.0, K, ("JS:*hotLeaf /x/hot.js:20:17+0x30f", MAP),
              ("LazyCompile:*hotMiddle /x/hot.js:43:19", MAP), ("JS:^hotOuter /x/hot.js:66:18", MAP),
              ("Builtins_InterpreterEntryTrampoline", "/usr/bin/node"),
              ("JS:~hotMain /x/hot.js:89:17", MAP), ("node::Start+0x58f", "/usr/bin/node"))
broken = sample(1.1, ("JS:*hotLeaf /x/hot.js:20:17", MAP), ("JS:*hotOuter /x/hot.js:66:18", MAP),
                ("JS:*hotMiddle /x/hot.js:43:19", MAP), ("JS:*hotMain /x/hot.js:89:17", MAP),
                ("node::Start", "/usr/bin/node"))
other = sample(1.2, ("JS:*hotLeafX /x/hot.js:1:1", MAP), ("node::Start", "/usr/bin/node"))
r = cs.measure(node + broken + other, *cs.PRESETS["node"])
check("node names, out-of-order callers fail, hotLeafX is not hotLeaf",
      (r["samples"], r["leaf_samples"], r["chain_samples"]) == (3, 2, 1))
check("first missing link counted (hotOuter after hotMiddle)", r["first_missing"] == {"hotOuter": 1})

java = sample(1.0, ("long Hot.hotLeaf(long)+0x8b", MAP), ("LHot;::hotMiddle", MAP),
              ("Hot::hotOuter", MAP), ("long Hot.hotMain(long)", MAP), ("StubRoutines (1)+0xc9", MAP),
              ("JavaMain+0xd82", "/usr/lib/jvm/lib/libjli.so"))
r = cs.measure(java, *cs.PRESETS["java"])
check("java perf-map names (signature, L...;::, ::)", r["chain_samples"] == 1)

go = sample(1.0, ("main.hotLeaf+0x6d", "/b/hot"), ("main.hotMiddle", "/b/hot"),
            ("main.hotOuter", "/b/hot"), ("main.hotMain", "/b/hot"), ("main.worker", "/b/hot"),
            ("runtime.goexit.abi0+0x1", "/b/hot"))
stripped = sample(1.1, ("[unknown]", "/b/hot"), ("[unknown]", "/b/hot"))
r = cs.measure(go + stripped, *cs.PRESETS["go"])
check("go: goroutine root runtime.goexit; unnamed frames are no leaf",
      (r["leaf_samples"], r["chain_samples"]) == (1, 1))

LP = "/py/libpython3.12.so"
perf_py = sample(1.0, ("_PyEval_EvalFrameDefault", LP), ("py::hotLeaf:/x/hot_perf.py", MAP),
                 ("_PyEval_EvalFrameDefault", LP), ("py::hotMiddle:/x/hot_perf.py", MAP),
                 ("py::hotOuter:/x/hot_perf.py", MAP), ("py::hotMain:/x/hot_perf.py", MAP),
                 ("Py_RunMain", LP))
trec_py = sample(1.1, ("long_xor", LP), ("hotLeaf (hot_perf.py:17)", "/x/hot_perf.py"),
                 ("_PyEval_EvalFrameDefault", LP), ("[unknown]", "[unknown]"),
                 ("[error: NATIVE_NO_PAGE_INFO]", "[unknown]"))
r = cs.measure(perf_py + trec_py, *cs.PRESETS["python"])
check("python: leaf is the innermost Python frame, perf's py:: and treport's forms",
      (r["leaf_samples"], r["chain_samples"]) == (2, 1))

late = sample(0.0, ("main.hotLeaf", "/b/hot"), comm="trecord") + go + \
    sample(1.4, ("main.hotLeaf", "/b/hot")) + sample(1.6, ("main.hotLeaf", "/b/hot"))
r = cs.measure(late, *cs.PRESETS["go"], comm="(?!trecord )", skip_secs=0.5)
check("--comm filters headers, --skip-secs counts from the first kept sample",
      (r["samples"], r["skipped"], r["leaf_samples"]) == (1, 2, 1))
EOF
