# go tool pprof takes a profile's first mapping for the main binary (-top's
# "File:" line): it must be the executable of the process with the most
# samples, even when the first stack seen starts in the kernel or in a
# library (a Python recording's first sample is often a syscall).
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t

if not t.have_go():
    print("SKIP: go is not installed (make deps)")
    sys.exit(77)
t.build_workloads()
d = t.tmpdir()
busy = os.path.join(t.WORKLOADS, "busy")
libc = os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6")
syms = {name: start for start, size, name in t.text_symbols(busy)}
spec = """file 0x1111 {busy} {bid}
file 0x2222 {libc} {lbid}
ksym 0xffffffff81000000 T do_syscall_64
ksyms 1
map 1 7 0x555555554000 0x555555556000 0 0x1111 0x555555554000 5 {busy}
map 1 7 0x7ffff7dd0000 0x7ffff7f60000 0 0x2222 0x7ffff7dd0000 5 {libc}
maps
sample 2 7 7 0 3 busy k:0xffffffff81000010 u:0x2222:0x1000 u:0x1111:0x{main:x}:2
sample 3 8 8 0 1 other u:0x2222:0x1000
sample 4 7 7 0 5 busy u:0x1111:0x{main:x}
summary 0 5 9 0 0
""".format(busy=busy, bid=t.build_id(busy), libc=libc, lbid=t.build_id(libc), main=syms["main"])
tr = t.write_tr(os.path.join(d, "k.tr"), spec)
pb = os.path.join(d, "k.pb.gz")
t.treport(tr, "--pprof", "-o", pb)
r = subprocess.run(["go", "tool", "pprof", "-top", pb], capture_output=True, text=True, env=t.pprof_env())
first = r.stdout.splitlines()[0] if r.stdout else r.stderr
t.check(first == "File: busy", "pprof -top: the main binary is busy, not the kernel or libc", first)
t.finish()
