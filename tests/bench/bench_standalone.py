"""Runs one bench part on its own (make bench runs them all with the rest):
the part's run_all(b) on a bare b, then its table."""
import argparse
import os
import sys
import types


def main(doc, run_all, table_rows, workloads=False, add_args=None, use_args=None):
    """add_args(ap) adds a part's own options; use_args(a) applies them."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--trecord", required=True)
    ap.add_argument("--treport", required=True)
    if workloads:
        ap.add_argument("--workloads", required=True)
    ap.add_argument("--out-dir", required=True)
    if add_args:
        add_args(ap)
    else:
        ap.add_argument("--runs", type=int, default=5)
        ap.add_argument("--secs", type=float, default=1.0)
    a = ap.parse_args()
    if use_args:
        use_args(a)
    os.makedirs(a.out_dir, exist_ok=True)
    b = types.SimpleNamespace(a=a, out=a.out_dir, have_trec=True, res={})
    run_all(b)
    print("\n".join(table_rows(b.res)))
    return 0


if __name__ == "__main__":
    sys.exit("import it: bench_standalone.main(__doc__, run_all, table_rows)")
