"""Samples of trec recordings, for report scripts (Python 3, stdlib only).

Runs `treport --json` and yields one dict per sample, as README's "JSON
output" documents it:

    {"time": 0.012345678, "pid": 42, "tid": 43, "cpu": 1, "comm": "busy",
     "event": "cpu-clock", "weight": 1,
     "frames": [{"name": ..., "dso": ..., "file": ..., "line": ..., "kind": ...}, ...]}

frames are leaf first. treport is found as $TREPORT, else the build next to
this file (../build/treport), else on PATH.

    import trec_samples
    for s in trec_samples.samples("rec.tr", "--pid", "42"):
        print(s["time"], s["comm"], s["frames"][0]["name"])
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

# Frames of the program's own code (JSON `kind`): not kernel, error or
# the process root. JIT code is "native" (named from perf maps).
USER_KINDS = ("native", "inlined", "python", "perl", "ruby", "php", "interpreted")


class TreportError(RuntimeError):
    pass


def find_treport():
    env = os.environ.get("TREPORT")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "build", "treport")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    found = shutil.which("treport")
    if found:
        return found
    raise TreportError("treport not found: build it (make) or set TREPORT")


def samples(recording, *treport_args, treport=None):
    """Yields the samples of recording (a path, or a list of paths to
    merge), with extra treport options such as filters ("--pid", "42")."""
    paths = [recording] if isinstance(recording, str) else list(recording)
    cmd = [treport or find_treport(), "--json"] + list(treport_args) + paths
    errf = tempfile.TemporaryFile()  # a pipe could fill up while we read stdout
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf)
    done = False
    try:
        for line in proc.stdout:
            yield json.loads(line)
        done = True
    finally:
        if not done:  # the caller stopped early, or a line did not parse
            proc.kill()
        proc.stdout.close()
        rc = proc.wait()
        errf.seek(0)
        err = errf.read().decode("utf-8", "replace")
        errf.close()
    if rc != 0:
        raise TreportError("%s failed (exit %d): %s" % (" ".join(cmd), rc, err.strip()))
    if err.strip():  # treport's warnings (a binary of another build, ...)
        sys.stderr.write(err)


def user_leaf(sample):
    """The innermost frame of the program's own code (not kernel, not an
    error frame), else the leaf; None for a sample without frames."""
    frames = sample["frames"]
    for f in frames:
        if f["kind"] in USER_KINDS:
            return f
    return frames[0] if frames else None


def add_filter_args(parser):
    """Adds treport's sample filters to an argparse parser."""
    g = parser.add_argument_group("filters (passed to treport)")
    g.add_argument("--pid", help="only these processes: PID[,PID...]")
    g.add_argument("--tid", help="only these threads: TID[,TID...]")
    g.add_argument("--comm", help="only these command names: NAME[,NAME...]")
    g.add_argument("--time", help="only samples in START,END (seconds from the recording start)")
    g.add_argument("--treport", help="the treport to run (default: $TREPORT, ../build/treport, PATH)")


def filter_args(ns):
    """treport options for the filters add_filter_args added."""
    out = []
    for opt in ("pid", "tid", "comm", "time"):
        v = getattr(ns, opt, None)
        if v is not None:
            out += ["--" + opt, v]
    return out


def die(msg):
    sys.stderr.write("%s: %s\n" % (os.path.basename(sys.argv[0]), msg))
    sys.exit(1)
