#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The plots of make bench, as SVG beside its tables.

    scripts/plot_bench.py RESULTS.txt OUTDIR [TITLE]

From the RESULT lines of scripts/bench.sh (medians over its rounds, with
their min-max as a band where there were rounds), writes:
  bandwidth.svg   put and get bandwidth against size: libpgas, the memcpy
                  limit, Open MPI, MPICH;
  latency.svg     AM round trips against size (Medium through each path,
                  Long) with the cache-line round trip, and the 8-byte
                  latencies of libpgas and every peer;
  coll-N.svg      every collective against size at N ranks: libpgas's tuned
                  choice, its best algorithm, Open MPI, MPICH, oshmem;
  shmem.svg       our OpenSHMEM layer against libpgas and Open MPI's oshmem:
                  its collectives at 2 and 4 PEs, and p/g latency.
Plain SVG, no plotting library needed.
"""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import load  # noqa: E402

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
PW, PH = 330, 230  # one panel
ML, MT, MB = 58, 28, 34


def esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def size_label(x):
    for div, unit in ((1 << 20, "M"), (1 << 10, "K")):
        if x >= div and x % div == 0:
            return f"{x // div}{unit}"
    return f"{x:g}"


def panel(out, x0, y0, title, series, ylabel, logy=True, hlines=(), xnames=None):
    """series: [(label, color, [(x, y, lo, hi)])]; x on a log2 axis (sizes),
    or categories named by xnames {x: name}."""
    pts = [p for _, _, ps in series for p in ps if p[1] and p[1] > 0]
    if not pts:
        return
    xs = sorted({p[0] for p in pts if p[0] > 0})
    ys = [p[1] for p in pts] + [h for _, _, h in hlines] + \
        [p[2] for p in pts if p[2]] + [p[3] for p in pts if p[3]]
    ys = [y for y in ys if y and y > 0]
    if not ys:
        return
    lx0, lx1 = math.log2(xs[0]) if xs else 0, math.log2(xs[-1]) if xs else 1
    if lx1 == lx0:
        lx0, lx1 = lx0 - 1, lx1 + 1
    if logy:
        ly0, ly1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
        if ly1 == ly0:
            ly1 += 1
    else:
        ly0, ly1 = 0, max(ys) * 1.1
    w, h = PW - ML - 10, PH - MT - MB

    def X(x):
        return x0 + ML + w * (math.log2(x) - lx0) / (lx1 - lx0)

    def Y(y):
        v = (math.log10(y) - ly0) / (ly1 - ly0) if logy else (y - ly0) / (ly1 - ly0)
        return y0 + MT + h * (1 - v)

    out.append(f'<text x="{x0 + ML + w / 2}" y="{y0 + 16}" text-anchor="middle" '
               f'font-size="12" font-weight="bold">{esc(title)}</text>')
    out.append(f'<rect x="{x0 + ML}" y="{y0 + MT}" width="{w}" height="{h}" fill="none" stroke="#444"/>')
    ticks = [10 ** e for e in range(ly0, ly1 + 1)] if logy else [ly1 * i / 4 for i in range(5)]
    for t in ticks:
        out.append(f'<line x1="{x0 + ML}" y1="{Y(t):.1f}" x2="{x0 + ML + w}" y2="{Y(t):.1f}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{x0 + ML - 4}" y="{Y(t) + 4:.1f}" text-anchor="end" '
                   f'font-size="9">{t:g}</text>')
    step = max(1, len(xs) // 8)
    for x in xs[::step]:
        name = xnames.get(x, "") if xnames else size_label(x)
        out.append(f'<text x="{X(x):.1f}" y="{y0 + MT + h + 12}" text-anchor="middle" '
                   f'font-size="9">{esc(name)}</text>')
    if not xnames:
        out.append(f'<text x="{x0 + ML + w / 2}" y="{y0 + PH - 6}" text-anchor="middle" '
                   f'font-size="10">bytes</text>')
    out.append(f'<text x="{x0 + 12}" y="{y0 + MT + h / 2}" text-anchor="middle" font-size="10" '
               f'transform="rotate(-90 {x0 + 12} {y0 + MT + h / 2})">{esc(ylabel)}</text>')
    for label, color, y in hlines:
        if not y or y <= 0:
            continue
        out.append(f'<line x1="{x0 + ML}" y1="{Y(y):.1f}" x2="{x0 + ML + w}" y2="{Y(y):.1f}" '
                   f'stroke="{color}" stroke-dasharray="5,3"/>')
        out.append(f'<text x="{x0 + ML + w - 2}" y="{Y(y) - 3:.1f}" text-anchor="end" '
                   f'font-size="9" fill="{color}">{esc(label)}</text>')
    for label, color, ps in series:
        ps = sorted(p for p in ps if p[1] and p[1] > 0 and p[0] > 0)
        for x, _, lo, hi in ps:  # the rounds' spread
            if lo and hi and hi > lo > 0:
                out.append(f'<line x1="{X(x):.1f}" y1="{Y(lo):.1f}" x2="{X(x):.1f}" '
                           f'y2="{Y(hi):.1f}" stroke="{color}" stroke-width="5" opacity="0.3"/>')
        if len(ps) > 1:
            out.append('<polyline fill="none" stroke="%s" stroke-width="1.8" points="%s"/>' %
                       (color, " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y, _, _ in ps)))
        for x, y, _, _ in ps:
            out.append(f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="2.5" fill="{color}"/>')


def figure(path, title, panels, legend, cols=3):
    """panels: [(title, series, ylabel, logy, hlines[, xnames])]; legend: [(label, color)]."""
    panels = [p for p in panels if any(q[0] > 0 and q[1] for _, _, ps in p[1] for q in ps)]
    if not panels:
        return False
    rows = (len(panels) + cols - 1) // cols
    width, height = cols * PW + 20, rows * PH + 40 + 18 * ((len(legend) + 3) // 4)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           'font-family="sans-serif">', f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="16" text-anchor="middle" font-size="13">{esc(title)}</text>']
    for i, p in enumerate(panels):
        panel(out, 10 + (i % cols) * PW, 22 + (i // cols) * PH, *p)
    for i, (label, color) in enumerate(legend):
        x, y = 20 + (i % 4) * (width - 40) / 4, 22 + rows * PH + 14 + 18 * (i // 4)
        out.append(f'<rect x="{x}" y="{y - 10}" width="12" height="10" fill="{color}"/>')
        out.append(f'<text x="{x + 16}" y="{y}" font-size="11">{esc(label)}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return True


def main():
    res = load(sys.argv[1])
    outdir = sys.argv[2]
    note = sys.argv[3] if len(sys.argv) > 3 else ""

    def pt(name, x, scale=1.0):
        if name not in res or res[name][0] is None:
            return None
        sp = res.spread(name)
        return (x, res[name][0] * scale, sp[0] * scale if sp else None,
                sp[1] * scale if sp else None)

    def series(prefix, scale=1.0):
        """(x, value...) of every name prefix.<size>."""
        ps = []
        for k in res:
            if k.startswith(prefix + ".") and k[len(prefix) + 1:].isdigit():
                p = pt(k, int(k[len(prefix) + 1:]), scale)
                if p:
                    ps.append(p)
        return ps

    made = []
    # Bandwidth (MB/s as measured).
    who = [("libpgas", "pgas"), ("Open MPI", "openmpi"), ("MPICH", "mpich")]
    bw = []
    for op in ("put", "get"):
        s = [(f"{lbl} {op}", COLORS[i], series(f"{p}.{op}_bw")) for i, (lbl, p) in enumerate(who)]
        s.append(("memcpy (the limit)", COLORS[7], series("limit.memcpy_bw")))
        unit = res[f"pgas.{op}_bw.8"][1] if f"pgas.{op}_bw.8" in res else ""
        bw.append((f"{op} bandwidth", s, unit, True, ()))
    if figure(os.path.join(outdir, "bandwidth.svg"), f"Bandwidth, 2 ranks ({note})", bw,
              [(lbl, COLORS[i]) for i, (lbl, _) in enumerate(who)] + [("memcpy", COLORS[7])], cols=2):
        made.append("bandwidth.svg")
    # Latency.
    lims = [res[k][0] for k in ("limit.cacheline_rtt", "limit.store_pingpong") if k in res]
    line = min(lims) if lims else None  # the report's limit: the faster ping-pong
    hl = [("cache-line round trip", COLORS[7], line)] if line else []
    am = [("AM Medium (default)", COLORS[0], series("pgas.am_medium_rtt")),
          ("AM Medium, VELO packets", COLORS[2], series("pgas_packets.am_medium_rtt")),
          ("AM Medium, bounce buffers", COLORS[3], series("pgas_bounce.am_medium_rtt")),
          ("AM Long", COLORS[4], series("pgas.am_long_rtt"))]
    eight = []
    for i, (lbl, name) in enumerate((("libpgas AM Short", "pgas.am_short_rtt"),
                                    ("libpgas put ping-pong", "pgas.put8_pingpong"),
                                    ("Open MPI ping-pong", "openmpi.pingpong8_rtt"),
                                    ("MPICH ping-pong", "mpich.pingpong8_rtt"))):
        p = pt(name, 8 * (i + 1))
        eight.append((lbl, COLORS[(i + 1) % 7], [p] if p else []))
    eight_x = {8: "AM", 16: "put", 24: "OMPI", 32: "MPICH"}
    if figure(os.path.join(outdir, "latency.svg"), f"Round trips, 2 ranks ({note})",
              [("AM round trip", am, "us", True, hl),
               ("8-byte round trips", eight, "us", True, hl, eight_x)],
              [(lbl, c) for lbl, c, _ in am + eight] + [("cache-line round trip", COLORS[7])],
              cols=2):
        made.append("latency.svg")
    # Collectives per rank count.
    kinds = ("broadcast", "scatter", "gather", "gather_all", "exchange", "reduce", "reduce_all",
             "scan")
    peers = [("Open MPI", "openmpi"), ("MPICH", "mpich"), ("oshmem", "oshmem")]
    for n in sorted({int(m.group(1)) for k in res if (m := re.match(r"coll(\d+)\.", k))}):
        panels = []
        for kind in kinds:
            s = [("libpgas (tuner)", COLORS[0], series(f"coll{n}.{kind}.tuner"))]
            s += [(lbl, COLORS[i + 1], series(f"{p}{n}.{kind}")) for i, (lbl, p) in enumerate(peers)]
            panels.append((kind, s, "us per call", True, ()))
        if figure(os.path.join(outdir, f"coll-{n}.svg"), f"Collectives, {n} ranks ({note})", panels,
                  [("libpgas (tuner)", COLORS[0])] + [(lbl, COLORS[i + 1])
                                                      for i, (lbl, _) in enumerate(peers)]):
            made.append(f"coll-{n}.svg")
    # Our OpenSHMEM against libpgas and oshmem.
    panels = []
    for n in (2, 4):
        for kind in sorted({k.split(".")[1] for k in res if k.startswith(f"pshmem{n}.")}):
            panels.append((f"{kind}, {n} PEs",
                           [("OpenSHMEM over libpgas", COLORS[0], series(f"pshmem{n}.{kind}")),
                            ("libpgas (tuner)", COLORS[2], series(f"coll{n}.{kind}.tuner")),
                            ("oshmem", COLORS[3], series(f"oshmem{n}.{kind}"))],
                           "us per call", True, ()))
    lat = []
    for i, (lbl, name) in enumerate((("p + quiet (static)", "put8_quiet"), ("g (static)", "get8"),
                                    ("p + quiet (heap)", "put8_quiet_heap"),
                                    ("g (heap)", "get8_heap"))):
        x = 8 * (i + 1)
        lat += [(f"ours: {lbl}", COLORS[0], [p] if (p := pt(f"pshmem.{name}", x)) else []),
                (f"oshmem: {lbl}", COLORS[3], [p] if (p := pt(f"oshmem.{name}", x)) else [])]
    base = [("libpgas put+quiet", COLORS[2], [p] if (p := pt("pgas.put8_val_quiet", 8)) else []),
            ("libpgas get", COLORS[2], [p] if (p := pt("pgas.get8_val", 16)) else [])]
    panels.insert(0, ("8-byte p + quiet and g", lat + base, "us", True, (),
                      {8: "p+q", 16: "g", 24: "heap p+q", 32: "heap g"}))
    if figure(os.path.join(outdir, "shmem.svg"), f"OpenSHMEM over libpgas ({note})", panels,
              [("OpenSHMEM over libpgas", COLORS[0]), ("libpgas", COLORS[2]),
               ("oshmem", COLORS[3])]):
        made.append("shmem.svg")
    print("plots: " + (", ".join(os.path.join(outdir, m) for m in made) if made else "none"))


if __name__ == "__main__":
    main()
