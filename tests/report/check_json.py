# treport --json on synthetic recordings: one JSON object per sample
# record, every documented field with its type, time order, stacks equal
# to --folded's, filters and merged recordings, hostile names escaped
# (strict JSON, invalid UTF-8 as U+FFFD, nothing unescaped).
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import trlib as t
import views_spec as v

d = t.tmpdir()
a, b, sa, sb = v.busy_recordings(d)


def load(*args):
    out = t.run([t.TREPORT] + [str(x) for x in args] + ["--json"], text=False)
    if out.returncode:
        raise RuntimeError(out.stderr.decode(errors="replace"))
    lines = out.stdout.split(b"\n")
    assert lines[-1] == b""
    return [json.loads(l.decode("utf-8")) for l in lines[:-1]], out.stdout


def fold_name(name, root=False):
    """--folded's spelling of a frame name."""
    name = name.replace(";", ":").replace('"', "").replace("'", "")
    return name.replace(" ", "_") if root else name


def as_folded(samples):
    st = {}
    for s in samples:
        key = ";".join([fold_name(s["comm"], True)] + [fold_name(f["name"]) for f in reversed(s["frames"])])
        st[key] = st.get(key, 0) + s["weight"]
    return st


js, raw = load(a)
t.check(len(js) == len(sa), "json: one object per sample record (%d)" % len(sa), len(js))
t.check(sum(s["weight"] for s in js) == sum(s[4] for s in sa), "json: weights sum to the total")
fields = {"time": float, "pid": int, "tid": int, "cpu": int, "comm": str, "event": str, "weight": int,
          "frames": list}
t.check(all(set(s) == set(fields) and all(isinstance(s[k], ty) for k, ty in fields.items()) for s in js),
        "json: fields time, pid, tid, cpu, comm, event, weight, frames", js[0])
ffields = {"name": str, "dso": (str, type(None)), "file": (str, type(None)), "line": (int, type(None)),
           "kind": str}
t.check(all(set(f) == set(ffields) and all(isinstance(f[k], ty) for k, ty in ffields.items())
            for s in js for f in s["frames"]), "json: frames {name, dso, file, line, kind}")
t.check([s["time"] for s in js] == sorted(s["time"] for s in js) and
        abs(js[0]["time"] - min(s[5] for s in sa)) < 1e-9 and
        re.search(rb'"time":\d+\.\d{9},', raw) is not None,
        "json: time order, seconds from the recording start with ns digits")
t.check(as_folded(js) == t.parse_folded(t.treport(a, "--folded").stdout), "json: stacks equal --folded's")
t.check({s["event"] for s in js} == {"cpu-clock"} and {s["comm"] for s in js} == {"busy", "my-prog"},
        "json: event and comm")
kinds = {f["kind"] for s in js for f in s["frames"]}
t.check({"native", "kernel", "error"} <= kinds <= {"native", "inlined", "kernel", "python", "perl", "ruby", "php", "error", "jit"},
        "json: frame kinds", kinds)
leaf = js[0]["frames"][0]
t.check(leaf["name"] == "spin.constprop.0" and leaf["dso"].endswith("/busy") and
        leaf["file"] and leaf["file"].endswith("busy.c") and leaf["line"] > 0,
        "json: leaf first, with dso, file and line from DWARF", leaf)
sys_s = [s for s in js if any(f["kind"] == "kernel" for f in s["frames"])][0]
t.check([f["name"] for f in sys_s["frames"]][:2] == ["do_syscall_64", "entry_SYSCALL_64"] and
        sys_s["frames"][0]["dso"] == "[kernel.kallsyms]" and sys_s["frames"][0]["file"] is None,
        "json: kernel frames leaf first, before the user frames", sys_s["frames"])
err = [f for s in js for f in s["frames"] if f["kind"] == "error"]
t.check(err and err[0]["name"] == "[error: NATIVE_STACK_DELTA_INVALID]", "json: error frames by name")

# filters and merging
jp, _ = load(a, "--pid", "42", "--time", "0.5,")
t.check(len(jp) == len([s for s in sa if s[1] == 42 and s[5] >= 0.5]) and
        as_folded(jp) == t.parse_folded(t.treport(a, "--folded", "--pid", "42", "--time", "0.5,").stdout),
        "json: --pid and --time filter like --folded")
jm, _ = load(a, b)
t.check(len(jm) == len(sa) + len(sb) and as_folded(jm) == t.parse_folded(t.treport(a, b, "--folded").stdout),
        "json: merged recordings")
ju, _ = load(a, "--user-only")
t.check(all(f["kind"] != "kernel" for s in ju for f in s["frames"]), "json: --user-only")

# hostile names
h = v.hostile_recording(d)
try:
    jh, rawh = load(h)
    s = jh[0]
    t.check(len(jh) == 1 and s["comm"] == v.decode_like_treport(v.HOSTILE_COMM) and
            [f["name"] for f in s["frames"]][:2] == [v.decode_like_treport(v.HOSTILE_KSYM),
                                                     "[" + v.decode_like_treport(v.HOSTILE_PATH.rsplit(b"/", 1)[1]) + "]"] and
            s["frames"][1]["dso"] == v.decode_like_treport(v.HOSTILE_PATH),
            "json: hostile names come back as written (invalid UTF-8 as U+FFFD)", s)
    t.check(all(c >= 0x20 for c in rawh.rstrip(b"\n")) and rawh.count(b"\n") == 1,
            "json: no raw control bytes, one line per sample")
    rawh.decode("utf-8")
    t.check(True, "json: output is valid UTF-8")
except (ValueError, UnicodeDecodeError) as e:
    t.check(False, "json: hostile names: strict JSON and UTF-8", e)
t.finish()
