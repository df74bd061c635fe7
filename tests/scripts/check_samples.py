# scripts/trec_samples.py, the scripts' shared module: samples as treport
# --json gives them (the same stacks as --folded), filters passed through,
# merged recordings, treport found through $TREPORT, an early stop that
# leaves no process behind, errors as TreportError.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "report"))
import trlib as t  # noqa: E402
import views_spec as v  # noqa: E402

sys.path.insert(0, os.path.join(t.ROOT, "scripts"))
os.environ["TREPORT"] = t.TREPORT
import trec_samples as ts  # noqa: E402

d = t.tmpdir()
a, b, sa, sb = v.busy_recordings(d)
got = list(ts.samples(a))
t.check(len(got) == len(sa) and sum(s["weight"] for s in got) == sum(s[4] for s in sa),
        "samples: one dict per sample")
folded = {}
for s in got:
    k = ";".join([s["comm"]] + [f["name"] for f in reversed(s["frames"])])
    folded[k] = folded.get(k, 0) + s["weight"]
t.check(folded == t.parse_folded(t.treport(a, "--folded").stdout), "samples: the stacks of --folded")
t.check(len(list(ts.samples(a, "--tid", "43"))) == len([s for s in sa if s[2] == 43]), "samples: filters pass through")
t.check(len(list(ts.samples([a, b]))) == len(sa) + len(sb), "samples: a list of recordings is merged")
t.check(ts.find_treport() == t.TREPORT, "samples: $TREPORT chooses the treport")
leafs = {ts.user_leaf(s)["name"] for s in got}
t.check("do_syscall_64" not in leafs and not any(n.startswith("[error") for n in leafs),
        "samples: user_leaf looks through kernel and error frames", leafs)

gen = ts.samples(a)
next(gen)
gen.close()
t.check(True, "samples: stopping early raises nothing (treport is killed)")
try:
    list(ts.samples(os.path.join(d, "missing.tr")))
    t.check(False, "samples: a failing treport raises TreportError")
except ts.TreportError as e:
    t.check("missing.tr" in str(e), "samples: a failing treport raises TreportError", e)
t.finish()
