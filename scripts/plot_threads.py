#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plot the threads paper's comparison (bench/threads.c) as an SVG.

    scripts/plot_threads.py RESULTS.txt OUT.svg [TITLE]

RESULTS.txt holds "RESULT threads.MODE.METRIC.N VALUE UNIT" lines
(scripts/bench.sh threads).  One panel per metric (AM Short rate, 8-byte
put rate, AM round trip), one line per mode: (a) N processes, (b) N
threads with an endpoint each, (c) N threads on the primary.  Plain SVG,
no plotting library needed.
"""
import re
import sys

MODES = [("proc", "(a) N processes", "#1f77b4"),
         ("ep", "(b) N threads, an endpoint each", "#2ca02c"),
         ("shared", "(c) N threads, one primary", "#d62728")]
METRICS = [("am_short_rate", "AM Short rate (M msg/s)", 1e-6),
           ("put8_rate", "8-byte put rate (M puts/s)", 1e-6),
           ("am_rtt", "AM round trip (us)", 1e-3)]


def load(path):
    res = {}
    pat = re.compile(r"^RESULT threads\.(\w+)\.(\w+)\.(\d+) ([0-9.eE+-]+)")
    with open(path) as f:
        for line in f:
            m = pat.match(line)
            if m:
                mode, metric, n, v = m.group(1), m.group(2), int(m.group(3)), float(m.group(4))
                key = (mode, metric, n)
                # Best of the repetitions: highest rate, lowest latency.
                if key not in res:
                    res[key] = v
                elif metric == "am_rtt":
                    res[key] = min(res[key], v)
                else:
                    res[key] = max(res[key], v)
    return res


def panel(out, res, x0, metric, label, scale, ns):
    w, h, pad = 300, 220, 40
    vals = [res[(m, metric, n)] * scale for m, _, _ in MODES for n in ns
            if (m, metric, n) in res]
    if not vals:
        return
    top = max(vals) * 1.15 or 1
    out.append(f'<text x="{x0 + w / 2}" y="18" text-anchor="middle" font-size="13">{label}</text>')
    out.append(f'<line x1="{x0 + pad}" y1="{h}" x2="{x0 + w}" y2="{h}" stroke="black"/>')
    out.append(f'<line x1="{x0 + pad}" y1="30" x2="{x0 + pad}" y2="{h}" stroke="black"/>')
    for i in range(5):
        v = top * i / 4
        y = h - (h - 30) * i / 4
        out.append(f'<text x="{x0 + pad - 4}" y="{y + 4}" text-anchor="end" font-size="10">{v:.3g}</text>')

    def xy(i, v):
        x = x0 + pad + (w - pad) * (i + 0.5) / len(ns)
        return x, h - (h - 30) * v / top

    for i, n in enumerate(ns):
        x, _ = xy(i, 0)
        out.append(f'<text x="{x}" y="{h + 14}" text-anchor="middle" font-size="10">N={n}</text>')
    for mode, _, color in MODES:
        pts = [xy(i, res[(mode, metric, n)] * scale) for i, n in enumerate(ns)
               if (mode, metric, n) in res]
        if len(pts) > 1:
            out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' %
                       (color, " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)))
        for x, y in pts:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>')


def main():
    res = load(sys.argv[1])
    title = sys.argv[3] if len(sys.argv) > 3 else ""
    ns = sorted({n for _, _, n in res})
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="960" height="300" '
           'font-family="sans-serif">', '<rect width="960" height="300" fill="white"/>']
    for i, (metric, label, scale) in enumerate(METRICS):
        panel(out, res, 10 + i * 315, metric, label, scale, ns)
    for i, (_, label, color) in enumerate(MODES):
        x = 60 + i * 290
        out.append(f'<rect x="{x}" y="262" width="12" height="12" fill="{color}"/>')
        out.append(f'<text x="{x + 16}" y="272" font-size="12">{label}</text>')
    if title:
        out.append(f'<text x="480" y="295" text-anchor="middle" font-size="11">{title}</text>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
