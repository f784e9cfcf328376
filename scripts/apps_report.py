#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The applications' report (scripts/bench_apps.sh): tables and plot from
its RESULT lines.

    scripts/apps_report.py RAW REPORT.txt PLOT.svg [TITLE]

The stencil and the integer sort: the time at every rank count over each
library.  NAS FT, per class: the time of every variant at every rank
count over each library; and what initiating and completing the
transfers cost inside the run, with the share of the transfers that
computation hid.  Times are the median [min-max] of the rounds; ours
(libpgas, our OpenSHMEM) against the best MPI and against Open MPI's
oshmem as the median of the ratios of the bests within each round.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_results import load, round_ratio  # noqa: E402
from plot_bench import COLORS, figure  # noqa: E402

IMPLS = [("libpgas", "libpgas"), ("shmem", "our OpenSHMEM"), ("openmpi", "Open MPI"),
         ("mpich", "MPICH"), ("oshmem", "oshmem")]
VARIANTS = ["exchange", "slabs", "pencils"]
OURS, MPIS = ("libpgas", "shmem"), ("openmpi", "mpich")


def main():
    raw, txt, svg = sys.argv[1:4]
    title = sys.argv[4] if len(sys.argv) > 4 else ""
    res = load(raw)
    runs = {}  # (class, n) -> {(impl, variant)}
    for name in res:
        f = name.split(".")
        if f[0] == "ft" and len(f) == 5:
            runs.setdefault((f[2], int(f[4])), set()).add((f[1], f[3]))
    seen = {name.split(".")[1] for name in res if name.split(".")[0] in ("ft", "stencil", "isort")}
    impls = [(i, label) for i, label in IMPLS if i in seen]
    out = [f"Applications (apps/): {title}",
           "seconds, median [min-max] of the rounds; every run verified"]

    def sec(name):
        if name not in res:
            return "-"
        s = res.spread(name)
        v = res[name][0] / 1e6
        return f"{v:.4f} [{s[0] / 1e6:.4f}-{s[1] / 1e6:.4f}]" if s else f"{v:.4f}"

    def versus(key, names_of):
        """Our best against the best MPI and oshmem, per round."""
        for side, members in (("ours", OURS), ("mpi", MPIS), ("oshmem", ("oshmem",))):
            names = [x for i in members for x in names_of(i) if x in res]
            if names:
                res.derive(f"best.{side}.{key}", lambda *x: min(x), *names, partial=True)
        for other, label in (("mpi", "the best MPI"), ("oshmem", "Open MPI's oshmem")):
            a, b = f"best.ours.{key}", f"best.{other}.{key}"
            r = round_ratio(res, a, b) if a in res and b in res else None
            if r is not None:
                out.append(f"  our best / {label}: {r:.2f}x" + (" (ours faster)" if r < 1 else ""))

    simple = (("stencil", "stencil (Jacobi 5-point, 2048 x 2048, 300 steps; halos by put + signal)"),
              ("isort", "integer sort (class A: 2^23 keys, 10 sorts)"))
    for app, label in simple:
        ns = sorted({int(x.split(".")[2]) for x in res
                     if x.split(".")[0] == app and len(x.split(".")) == 3})
        if not ns:
            continue
        out += ["", label, f"  {'ranks':<10}" + "".join(f"{lb:>28}" for _, lb in impls)]
        for n in ns:
            out.append(f"  {n:<10}" + "".join(f"{sec(f'{app}.{i}.{n}'):>28}" for i, _ in impls))
        for n in ns:
            out.append(f" {n} rank{'s' if n > 1 else ''}:")
            versus(f"{app}.{n}", lambda i, n=n: [f"{app}.{i}.{n}"])
    for cls, n in sorted(runs, key=lambda k: ("SWABC".find(k[0]), k[1])):
        out.append("")
        out.append(f"NAS FT class {cls}, {n} rank{'s' if n > 1 else ''}")
        out.append(f"  {'variant':<10}" + "".join(f"{label:>28}" for _, label in impls))
        for v in VARIANTS:
            out.append(f"  {v:<10}" + "".join(f"{sec(f'ft.{i}.{cls}.{v}.{n}'):>28}" for i, _ in impls))
        versus(f"ft.{cls}.{n}", lambda i, cls=cls, n=n: [f"ft.{i}.{cls}.{v}.{n}" for v in VARIANTS])
        out.append("  communication inside the run (initiation + completion, per process, ms;"
                   " hidden: 1 - that / the same transfers alone)")
        for v in VARIANTS:
            cells = []
            for i, _ in impls:
                c, a = f"ftcomm.{i}.{cls}.{v}.{n}", f"ftalone.{i}.{cls}.{v}.{n}"
                if c in res and a in res and res[a][0] > 0:
                    hid = max(0.0, 1 - res[c][0] / res[a][0])
                    cells.append(f"{res[c][0] / 1e3:.2f} ms, {100 * hid:.0f}% hidden")
                else:
                    cells.append("-")
            out.append(f"  {v:<10}" + "".join(f"{x:>28}" for x in cells))
    # Only this benchmark's notes (make bench passes its whole results file).
    notes = [x for x in res.notes if x.startswith(("ft ", "stencil ", "isort ", "applications",
                                                   "NAS FT", "machine"))]
    if notes:
        out.append("")
        out.append("notes:")
        out += [f"  {x}" for x in notes]
    with open(txt, "w") as f:
        f.write("\n".join(out) + "\n")

    def series_of(name_of, ns):
        """A panel's series: each library's (ranks, seconds, min, max)."""
        series = []
        for k, (i, label) in enumerate(impls):
            pts = []
            for n in ns:
                name = name_of(i, n)
                if name in res:
                    sp = res.spread(name)
                    pts.append((n, res[name][0] / 1e6, sp[0] / 1e6 if sp else None,
                                sp[1] / 1e6 if sp else None))
            series.append((label, COLORS[k], pts))
        return series

    def rank_names(ns):
        return {n: f"{n} rank{'s' if n > 1 else ''}" for n in ns}

    panels = []
    for app, label in simple:
        ns = sorted({int(x.split(".")[2]) for x in res
                     if x.split(".")[0] == app and len(x.split(".")) == 3})
        panels.append((app, series_of(lambda i, n, app=app: f"{app}.{i}.{n}", ns), "seconds",
                       True, (), rank_names(ns)))
    for cls in sorted({c for c, _ in runs}, key="SWABC".find):
        ns = sorted(n for c, n in runs if c == cls)
        for v in VARIANTS:
            panels.append((f"class {cls}, {v}",
                           series_of(lambda i, n, cls=cls, v=v: f"ft.{i}.{cls}.{v}.{n}", ns),
                           "seconds", True, (), rank_names(ns)))
    figure(svg, f"Applications, time per rank count: {title}", panels,
           [(label, COLORS[k]) for k, (_, label) in enumerate(impls)])


if __name__ == "__main__":
    main()
