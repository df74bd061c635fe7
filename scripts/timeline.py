#!/usr/bin/env python3
"""Per-thread timeline of a trec recording as an SVG: one row per thread,
named by its command name (thread name) and tid, with a bar wherever it was
sampled, coloured by the function it was running (its own innermost
frame: kernel and error frames are looked through). Hover a bar for the
function, the time span and the samples.

    scripts/timeline.py rec.tr -o timeline.svg [--top 12] [--pid PID] ...
"""
import argparse
import math
import os
import re
import sys
from xml.sax.saxutils import escape

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trec_samples  # noqa: E402

WIDTH, LABEL_W, ROW_H, TOP = 1200, 190, 22, 74
PALETTE = ["#e6550d", "#3182bd", "#31a354", "#756bb1", "#d6616b", "#e7ba52", "#17becf",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79"]
OTHER = "#c8c8c8"
_bad_xml = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml(s, limit=None):
    s = _bad_xml.sub("\ufffd", s)
    if limit and len(s) > limit:
        s = s[:limit - 2] + ".."
    return escape(s, {'"': "&quot;", "'": "&#39;"})


def read(args):
    """{(pid, tid): {"comm", "samples": [(time, weight, func)]}}."""
    threads = {}
    for s in trec_samples.samples(args.recording, *trec_samples.filter_args(args), treport=args.treport):
        leaf = trec_samples.user_leaf(s)
        th = threads.setdefault((s["pid"], s["tid"]), {"comm": s["comm"], "samples": []})
        th["comm"] = s["comm"]  # the latest name: threads often rename themselves early
        th["samples"].append((s["time"], s["weight"], leaf["name"] if leaf else "[no frames]"))
    return threads


def sample_period(threads):
    """The sampling interval, from the gaps between a thread's samples:
    their 10th percentile (a running thread is sampled every period)."""
    gaps = sorted(b[0] - a[0] for th in threads.values()
                  for a, b in zip(th["samples"], th["samples"][1:]) if b[0] > a[0])
    return gaps[len(gaps) // 10] if gaps else 0.001


def segments(samples, dt):
    """Runs of samples of one function without a gap: (start, end, func, weight)."""
    out = []
    for t, w, f in samples:
        if out and out[-1][2] == f and t - out[-1][1] <= 0.5 * dt:
            s = out[-1]
            out[-1] = (s[0], t + w * dt, f, s[3] + w)
        else:
            out.append((t, t + w * dt, f, w))
    return out


def nice_step(span, ticks=10):
    raw = span / ticks
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    return next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)


def render(args, threads):
    dt = sample_period(threads)
    rows = sorted(threads.items(), key=lambda kv: kv[0])  # by pid, then tid
    totals = {}
    for th in threads.values():
        for _, w, f in th["samples"]:
            totals[f] = totals.get(f, 0) + w
    ranked = sorted(totals, key=lambda f: (-totals[f], f))
    nsamples = sum(totals.values())
    coloured = [f for f in ranked[:min(args.top, len(PALETTE))] if totals[f] * 100.0 >= args.min * nsamples]
    color = {f: PALETTE[i] for i, f in enumerate(coloured)}
    t0 = min(0.0, min(th["samples"][0][0] for th in threads.values()))  # the recording's start
    t1 = max(th["samples"][-1][0] for th in threads.values()) + dt
    span = max(t1 - t0, dt)
    plot_w = WIDTH - LABEL_W - 20
    x = lambda t: LABEL_W + (t - t0) / span * plot_w
    legend_rows = (min(len(ranked), len(color) + 1) + 3) // 4
    height = TOP + len(rows) * ROW_H + 40 + legend_rows * 18
    out = ['<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
           '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" viewBox="0 0 %d %d">'
           % (WIDTH, height, WIDTH, height),
           '<style>text { font-family: Verdana, Helvetica, sans-serif; font-size: 12px; fill: #222; }'
           ' .small { font-size: 11px; fill: #555; } .bar:hover { stroke: #000; stroke-width: 0.8; }</style>',
           '<rect x="0" y="0" width="%d" height="%d" fill="#fafafa"/>' % (WIDTH, height),
           '<text x="%d" y="24" text-anchor="middle" style="font-size:17px">Timeline: %s</text>'
           % (WIDTH // 2, xml(os.path.basename(args.recording[0]) if len(args.recording) == 1
                             else "%d recordings" % len(args.recording))),
           '<text class="small" x="%d" y="42" text-anchor="middle">%d threads, %d samples, %.3f s; colour: the '
           'function each thread ran (its own innermost frame)</text>' % (WIDTH // 2, len(rows), nsamples, span)]
    # time axis
    step = nice_step(span)
    k = math.ceil(t0 / step)
    while k * step <= t1 + 1e-12:
        tx = x(k * step)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (tx, TOP - 6, tx, TOP + len(rows) * ROW_H))
        out.append('<text class="small" x="%.1f" y="%d" text-anchor="%s">%g s</text>'
                   % (tx, TOP - 10, "end" if tx > WIDTH - 40 else "middle", round(k * step, 9)))
        k += 1
    for i, ((pid, tid), th) in enumerate(rows):
        y = TOP + i * ROW_H
        n = sum(w for _, w, _ in th["samples"])
        if i % 2:
            out.append('<rect x="0" y="%d" width="%d" height="%d" fill="#f0f0f0"/>' % (y, WIDTH, ROW_H))
        out.append('<text x="8" y="%d"><title>%s: pid %d, tid %d, %d samples</title>%s</text>'
                   % (y + 15, xml(th["comm"]), pid, tid, n, xml("%s (%d)" % (th["comm"], tid), 26)))
        for s, e, f, w in segments(th["samples"], dt):
            out.append('<rect class="bar" x="%.2f" y="%d" width="%.2f" height="%d" fill="%s"><title>%s</title></rect>'
                       % (x(s), y + 3, max(x(e) - x(s), 0.8), ROW_H - 6, color.get(f, OTHER),
                          xml("%s (tid %d): %s, %.3f-%.3f s, %d samples" % (th["comm"], tid, f, s, e, w))))
    # legend: the coloured functions, then "other"
    y = TOP + len(rows) * ROW_H + 28
    items = [(f, color[f], totals[f]) for f in ranked if f in color]
    rest = sum(totals[f] for f in ranked if f not in color)
    if rest:
        items.append(("other functions", OTHER, rest))
    for j, (f, c, n) in enumerate(items):
        lx, ly = 10 + (j % 4) * (WIDTH - 20) // 4, y + (j // 4) * 18
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (lx, ly - 10, c))
        out.append('<text class="small" x="%d" y="%d"><title>%s</title>%s (%.1f%%)</text>'
                   % (lx + 16, ly, xml(f), xml(f, 34), 100.0 * n / nsamples))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recording", nargs="+", help="trec recording(s); several are merged")
    p.add_argument("-o", "--output", required=True, help="the SVG to write")
    p.add_argument("--top", type=int, default=len(PALETTE),
                   help="functions with a colour of their own (default and at most %d)" % len(PALETTE))
    p.add_argument("--min", type=float, default=1.0, metavar="PCT",
                   help="functions under PCT%% of the samples are 'other' (default 1)")
    trec_samples.add_filter_args(p)
    args = p.parse_args()
    try:
        threads = read(args)
    except trec_samples.TreportError as e:
        trec_samples.die(str(e))
    if not threads:
        trec_samples.die("no samples")
    svg = render(args, threads)
    with open(args.output, "w", encoding="utf-8", errors="replace") as f:
        f.write(svg)
    n = sum(len(th["samples"]) for th in threads.values())
    sys.stderr.write("timeline: %d threads, %d samples -> %s\n" % (len(threads), n, args.output))


if __name__ == "__main__":
    main()
