#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks make bench's report and plots on a made-up run whose answers are
known: medians and min-max over rounds, ratios as medians of the ratios
within a round (not the ratio of the medians), a name measured twice in a
round keeps its best, values outside the rounds stay as they are, the
best algorithm and best peer of each round, the old one-run format, and
plots that are well-formed SVG.  Prints TAP lines ("ok - ..." /
"not ok - ..."); exits 1 if any failed.

    scripts/test_bench_report.py
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.dom.minidom

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_results import load, round_ratio  # noqa: E402

failed = 0


def check(cond, what):
    global failed
    print(("ok - " if cond else "not ok - ") + "bench report: " + what)
    failed += not cond


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(1, abs(b))


RAW = """NOTE machine: test
ROUND 1
RESULT limit.cacheline_rtt 0.2 us
RESULT limit.store_pingpong 0.3 us
RESULT pgas.am_short_rtt 0.3 us
RESULT pgas.am_short_rtt 0.25 us
RESULT openmpi.pingpong8_rtt 0.5 us
RESULT mpich.pingpong8_rtt 2.0 us
RESULT coll2.gather.tree:flat:get.8 0.10 us
RESULT coll2.gather.tree:knomial:r2:get.8 0.12 us
RESULT coll2.gather.tree.8 0.10 us
RESULT coll2.gather.tuner.8 0.11 us
RESULT openmpi2.gather.8 0.20 us
RESULT oshmem2.gather.8 0.3 us
RESULT mpich2.gather.8 0.30 us
RESULT pgas.put_bw.64 100 MB/s
RESULT pgas.get_bw.64 90 MB/s
RESULT limit.memcpy_bw.64 200 MB/s
ROUND 2
RESULT limit.load_pingpong 0.1 us
RESULT limit.cacheline_rtt 0.4 us
RESULT limit.store_pingpong 0.3 us
RESULT pgas.am_short_rtt 0.9 us
RESULT openmpi.pingpong8_rtt 1.0 us
RESULT coll2.gather.tree:flat:get.8 0.30 us
RESULT coll2.gather.tree:knomial:r2:get.8 0.20 us
RESULT coll2.gather.tuner.8 0.25 us
RESULT openmpi2.gather.8 0.50 us
RESULT mpich2.gather.8 0.10 us
RESULT pgas.put_bw.64 150 MB/s
RESULT pgas.get_bw.64 0 MB/s
RESULT oshmem2.gather.8 -0.01 us
RESULT limit.memcpy_bw.64 150 MB/s
ROUND 3
RESULT pgas.get8_pingpong 0.2 us
RESULT limit.cacheline_rtt 0.2 us
RESULT limit.store_pingpong 0.1 us
RESULT pgas.am_short_rtt 400 ns
RESULT openmpi.pingpong8_rtt 0.2 us
RESULT coll2.gather.tree:flat:get.8 0.12 us
RESULT coll2.gather.tree:knomial:r2:get.8 0.13 us
RESULT coll2.gather.tuner.8 0.12 us
RESULT openmpi2.gather.8 0.30 us
RESULT mpich2.gather.8 0.40 us
RESULT pgas.put_bw.64 120 MB/s
RESULT limit.memcpy_bw.64 100 MB/s
ROUND 0
RESULT icount.am_short 36.5 instr
RESULT pgas.barrier 0.5 us
RESULT pgas.barrier 0.4 us
RESULT startup.launch.1024 0.5 s
RESULT startup.init.1024 0.6 s
RESULT startup.attach.1024 3 s
RESULT startup.barrier.1024 0.03 s
RESULT startup.total.1024 4.6 s
RESULT startup.end.1024 0.47 s
RESULT startup.maps.1024 28 mappings
"""


def main():
    with tempfile.TemporaryDirectory() as d:
        run(d)
    sys.exit(1 if failed else 0)


def run(d):
    raw = os.path.join(d, "results.txt")
    open(raw, "w").write(RAW)
    res = load(raw)
    # am_short: round 1 best of 0.3/0.25, then 0.9, 0.4 (ns -> us): median 0.4.
    check(close(res["pgas.am_short_rtt"][0], 0.4) and res.spread("pgas.am_short_rtt") ==
          (0.25, 0.9, 3), "median and [min-max] over rounds, best within a round, ns read as us")
    # Per-round ratios 0.25/0.5, 0.9/1.0, 0.4/0.2 = 0.5, 0.9, 2: median 0.9,
    # where the ratio of the medians would be 0.4/0.5 = 0.8.
    check(close(round_ratio(res, "pgas.am_short_rtt", "openmpi.pingpong8_rtt"), 0.9),
          "a ratio is the median of the ratios within each round")
    check(close(round_ratio(res, "pgas.am_short_rtt", "openmpi.pingpong8_rtt", True), 1 / 0.9),
          "the inverse ratio likewise")
    # MPICH measured in round 1 only: that round's ratio (0.25 / 2), not the
    # medians' (0.4 / 2); names measured in different rounds: no ratio.
    check(close(round_ratio(res, "pgas.am_short_rtt", "mpich.pingpong8_rtt"), 0.125) and
          round_ratio(res, "pgas.get8_pingpong", "limit.load_pingpong") is None,
          "a ratio only from the rounds both names were measured in")
    # oshmem's gather: 0.3 in round 1, -0.01 in round 2 (a time less a
    # barrier): the negative one is dropped, with a note.
    check(res.rounds.get("oshmem2.gather.8") == {1: 0.3} and
          any("oshmem2.gather.8" in x for x in res.notes),
          "a time at or below zero is dropped, with a note")
    check(close(res["pgas.barrier"][0], 0.4) and res.spread("pgas.barrier") is None and
          close(res["icount.am_short"][0], 36.5), "outside the rounds: as measured (best of two)")
    out_txt, out_json = os.path.join(d, "report.txt"), os.path.join(d, "report.json")
    rc = subprocess.run([sys.executable, os.path.join(HERE, "bench_report.py"), raw, out_txt,
                         out_json]).returncode
    check(rc == 0, "bench_report.py runs on a run of 3 rounds")
    if rc:
        return
    rep = json.load(open(out_json))
    rows = {r["metric"]: r for r in rep["rows"]}
    check(rep["rounds"] == 3, "the report counts the rounds")
    r = rows.get("AM Short round trip")
    # The limit per round: min(0.2,0.3)=0.2, min(0.4,0.3)=0.3, min(0.2,0.1)=0.1;
    # AM / limit: 0.25/0.2, 0.9/0.3, 0.4/0.1 = 1.25, 3, 4: median 3.
    lim = r and [x for x in r["ratios"] if x["label"] == "/cacheline"]
    check(bool(lim) and close(lim[0]["ratio"], 3.0) and close(r["min"], 0.25) and
          close(r["max"], 0.9), "AM against the limit measured in the same round")
    g = rows.get("gather 8 B (tuner)")
    best = g and {x["label"]: x["ratio"] for x in g["ratios"]}
    # Best algorithm per round: 0.10, 0.20, 0.12; tuner 0.11, 0.25, 0.12:
    # 1.1, 1.25, 1.0 -> 1.1.  Best peer per round: 0.20, 0.10, 0.30; tuner
    # against it: 0.55, 2.5, 0.4 -> 0.55.
    check(bool(best) and close(best.get("/best alg"), 1.1) and close(best.get("/best peer"), 0.55),
          "the best algorithm and the best peer are those of each round")
    txt = open(out_txt).read()
    check("3 rounds" in txt and "[0.25-0.9]" in txt, "the table shows the rounds and the spread")
    st = rows.get("1024 ranks, pgasrun start to end")
    check(bool(st) and close(st["value"], 4.6) and "target <=5 ok" in txt and
          "pgas_attach, 1 MiB" in txt, "start-up rows, 1024 ranks against the 5 s target")
    # The old format (no rounds) is read as before.
    one = os.path.join(d, "one.txt")
    open(one, "w").write("RESULT pgas.am_short_rtt 0.5 us\nRESULT pgas.am_short_rtt 0.3 us\n"
                         "RESULT openmpi.pingpong8_rtt 0.6 us\n")
    r1 = load(one)
    check(close(r1["pgas.am_short_rtt"][0], 0.3) and
          close(round_ratio(r1, "pgas.am_short_rtt", "openmpi.pingpong8_rtt"), 0.5),
          "a run without rounds: best of repeats, plain ratios")
    rc = subprocess.run([sys.executable, os.path.join(HERE, "plot_bench.py"), raw, d, "test"],
                        stdout=subprocess.DEVNULL).returncode
    svgs = [f for f in os.listdir(d) if f.endswith(".svg")]
    ok = rc == 0 and {"bandwidth.svg", "latency.svg", "coll-2.svg"} <= set(svgs)
    for f in svgs:
        try:
            xml.dom.minidom.parse(os.path.join(d, f))
        except Exception:  # noqa: BLE001
            ok = False
    check(ok, f"plots written (rounds that measured 0 and less too), well-formed SVG "
          f"({', '.join(sorted(svgs))})")
    apps_report(d)


def apps_report(d):
    """scripts/apps_report.py: known medians and ratios of the bests within
    each round, a side with one result in a round (it crashed once), only
    the applications' notes, a well-formed SVG."""
    raw = os.path.join(d, "apps.txt")
    open(raw, "w").write(
        "NOTE pgas: an unrelated note of make bench\nNOTE applications: 2 cpus\n"
        "ROUND 1\n"
        "RESULT stencil.libpgas.2 100 us\nRESULT stencil.openmpi.2 200 us\n"
        "RESULT ft.libpgas.S.slabs.2 300 us\nRESULT ft.openmpi.S.exchange.2 600 us\n"
        "RESULT ft.openmpi.S.pencils.2 500 us\nRESULT ftcomm.libpgas.S.slabs.2 30 us\n"
        "RESULT ftalone.libpgas.S.slabs.2 40 us\n"
        "ROUND 2\n"
        "RESULT stencil.libpgas.2 300 us\nRESULT stencil.openmpi.2 400 us\n"
        "RESULT ft.libpgas.S.slabs.2 200 us\nRESULT ft.libpgas.S.pencils.2 100 us\n"
        "RESULT ft.openmpi.S.exchange.2 1000 us\n"
        "ROUND 3\n"
        "RESULT stencil.libpgas.2 200 us\nRESULT stencil.openmpi.2 1000 us\n"
        "ROUND 0\n")
    txt, svg = os.path.join(d, "apps-report.txt"), os.path.join(d, "apps.svg")
    rc = subprocess.run([sys.executable, os.path.join(HERE, "apps_report.py"), raw, txt, svg, "t"],
                        stdout=subprocess.DEVNULL).returncode
    out = open(txt).read() if rc == 0 else ""
    # stencil: medians 200 and 400 us; the ratios 0.5, 0.75, 0.2: median 0.5
    # (the ratio of the medians would be 0.5 too: round 3 tells them apart
    # only in min-max).  FT: the bests per round 300/500 and 100/1000.
    check(rc == 0 and "0.0002 [0.0001-0.0003]" in out and
          "0.0004 [0.0002-0.0010]" in out, "apps report: medians and min-max of the rounds")
    check("our best / the best MPI: 0.50x" in out, "apps report: stencil, ratio of the bests per round")
    check("our best / the best MPI: 0.35x" in out,
          "apps report: FT, our best variant against MPI's best, per round (0.6, 0.1)")
    check("0.03 ms, 25% hidden" in out, "apps report: communication and the share hidden")
    check("applications: 2 cpus" in out and "unrelated" not in out,
          "apps report: its own notes only")
    try:
        xml.dom.minidom.parse(svg)
        ok = True
    except Exception:  # noqa: BLE001
        ok = False
    check(ok, "apps report: a well-formed SVG")


if __name__ == "__main__":
    main()
