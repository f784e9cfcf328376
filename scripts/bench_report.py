#!/usr/bin/env python3
"""Turns the RESULT lines of scripts/bench.sh into a table and JSON.

Every ratio is computed from values measured in the same run.  A ratio whose
operand is missing is printed as 'skipped'.
"""
import json
import re
import sys

from bench_results import load, ratio, round_ratio

raw, txt_path, json_path = sys.argv[1:4]
res = load(raw)
notes = res.notes
nrounds = max((len(r) for r in res.rounds.values()), default=1)


def v(name):
    return res[name][0] if name in res else None


rows = []  # (section, metric, value, unit, [(ratio label, ratio, target)])


def row(section, metric, name, comparisons):
    """A table row: name's value (the median over rounds) and its ratios to
    others (medians of the ratios within each round)."""
    val = v(name)
    unit = res[name][1] if name in res else ""
    rows.append((section, metric, val, unit,
                 [(lbl, round_ratio(res, name, other, inv) if val is not None else None, tgt)
                  for lbl, other, inv, tgt in comparisons], res.spread(name)))


# The physical limit: the faster of the one-line and two-line ping-pongs (per round).
if "limit.cacheline_rtt" in res and "limit.store_pingpong" in res:
    res.derive("limit.line_rtt", min, "limit.cacheline_rtt", "limit.store_pingpong")
clrt = "limit.line_rtt"
row("limit", "cache-line round trip (best of below)", clrt, [])
row("limit", "  one line, both ranks write it", "limit.cacheline_rtt", [])
row("limit", "  two lines, raw stores (= put pattern)", "limit.store_pingpong", [])
row("limit", "  two lines, raw remote loads", "limit.load_pingpong", [])
row("limit", "2-rank barrier of raw stores", "limit.barrier_raw", [])
# A request and its reply are two lines, each written by one side and read
# by the other: the raw store ping-pong is that pattern's own limit.
row("latency", "AM Short round trip", "pgas.am_short_rtt",
    [("/cacheline", clrt, False, "<=2"),
     ("/raw 2-line ping-pong", "limit.store_pingpong", False, ""),
     ("/OpenMPI pingpong", "openmpi.pingpong8_rtt", False, ""),
     ("/MPICH pingpong", "mpich.pingpong8_rtt", False, "")])
row("latency", "put 8 B latency (ping-pong of puts)", "pgas.put8_pingpong",
    [("/raw store ping-pong", "limit.store_pingpong", False, "<=1.5"),
     ("/OpenMPI pingpong", "openmpi.pingpong8_rtt", False, "")])
row("latency", "get 8 B latency (ping-pong polled by gets)", "pgas.get8_pingpong",
    [("/raw load ping-pong", "limit.load_pingpong", False, "<=1.5")])
row("overhead", "blocking put 8 B, per call in a loop", "pgas.put8_call",
    [("/store+release fence", "limit.store8_call", False, "")])
row("overhead", "blocking get 8 B, per call in a loop", "pgas.get8_call",
    [("/load+acquire fence", "limit.load8_call", False, "")])
for peer, pname in (("openmpi", "Open MPI"), ("mpich", "MPICH")):
    row("latency", f"{pname} MPI_Put 8 B + flush", f"{peer}.put8_flush",
        [("pgas put/this", "pgas.put8_call", True, "")])
    row("latency", f"{pname} MPI_Get 8 B + flush", f"{peer}.get8_flush",
        [("pgas get/this", "pgas.get8_call", True, "")])
row("latency", "OpenSHMEM put 8 B + quiet", "oshmem.put8_quiet",
    [("pgas put/this", "pgas.put8_call", True, "")])
row("latency", "OpenSHMEM get 8 B", "oshmem.get8", [("pgas get/this", "pgas.get8_call", True, "")])
# Our OpenSHMEM (shmem/, issue 13): the layer's overhead over libpgas's own
# call (target 1.1x) and Open MPI's oshmem against it (>1: ours is ahead).
for key, what, base in (("put8_quiet", "put 8 B + quiet (static)", "pgas.put8_val_quiet"),
                        ("get8", "get 8 B (static)", "pgas.get8_val"),
                        ("put8_quiet_heap", "put 8 B + quiet (heap)", "pgas.put8_val_quiet"),
                        ("get8_heap", "get 8 B (heap)", "pgas.get8_val"),
                        ("barrier", "barrier_all", "pgas.barrier")):
    row("shmem", f"OpenSHMEM over libpgas: {what}", f"pshmem.{key}",
        [("/libpgas", base, False, "<=1.1"), ("oshmem/this", f"oshmem.{key}", True, "")])
# The raw barrier's repetitions alternate with pgas_barrier's (bench/pgas_bench.c):
# the VM's vCPUs change placement within minutes, the line round trip with them.
row("barrier", "pgas_barrier", "pgas.barrier",
    [("/raw barrier", "limit.barrier_raw", False, "<=1.5"),
     ("/cacheline", clrt, False, "<=1.5"),
     ("/OpenMPI", "openmpi.barrier", False, ""),
     ("/MPICH", "mpich.barrier", False, ""),
     ("/OpenSHMEM", "oshmem.barrier", False, "")])
for name in sorted((k for k in res if k.startswith("pgas.am_medium_rtt.")),
                   key=lambda k: int(k.rsplit(".", 1)[1])):
    size = name.rsplit(".", 1)[1]
    row("AM Medium", f"round trip {size} B (default)", name,
        [("/cacheline", clrt, False, ""),
         ("packets/bounce", f"pgas_packets.am_medium_rtt.{size}", False, ""),
         ])
    res.setdefault("_", (0, ""))
    rows[-1][4].append(("packets us", v(f"pgas_packets.am_medium_rtt.{size}"), ""))
    rows[-1][4].append(("bounce us", v(f"pgas_bounce.am_medium_rtt.{size}"), ""))
for name in sorted((k for k in res if k.startswith("pgas.am_long_rtt.")),
                   key=lambda k: int(k.rsplit(".", 1)[1])):
    row("AM Long", f"round trip {name.rsplit('.', 1)[1]} B", name, [("/cacheline", clrt, False, "")])
sizes = sorted({int(k.rsplit(".", 1)[1]) for k in res if k.startswith("pgas.put_bw.")})
for s in sizes:
    for op in ("put", "get"):
        row("bandwidth", f"{op} {s} B", f"pgas.{op}_bw.{s}",
            [("/memcpy", f"limit.memcpy_bw.{s}", False, ">=0.9" if s >= 1 << 20 else "")] +
            # memcpy of the get's own buffers (segment to malloc): the user's alternative.
            ([("/memcpy same buffers", f"limit.memcpy_get_bw.{s}", False, "")] if op == "get" else []) +
            [("/OpenMPI", f"openmpi.{op}_bw.{s}", False, ""),
             ("/MPICH", f"mpich.{op}_bw.{s}", False, "")])
for metric, label in (("put8_pingpong", "put 8 B latency"), ("get8_pingpong", "get 8 B latency"),
                      ("am_short_rtt", "AM Short round trip"), ("barrier", "barrier"),
                      ("am_medium_rtt.4096", "AM Medium 4 KiB round trip")):
    row("vm kmod/shm", f"{label} over pgas.ko (TCG)", f"vm_kmod.{metric}",
        [("kmod/shm", f"vm_shm.{metric}", False, "<=1.05" if metric in
          ("put8_pingpong", "am_short_rtt", "barrier") else "")])
row("rate", "AM Short messages (one way)", "pgas.am_short_rate", [])
for size in (256, 1024):
    row("rate", f"AM Medium {size} B messages (default)", f"pgas.am_medium_rate.{size}", [])
    rows[-1][4].append(("packets", v(f"pgas_packets.am_medium_rate.{size}"), ""))
    rows[-1][4].append(("bounce", v(f"pgas_bounce.am_medium_rate.{size}"), ""))
# The threads paper's comparison (bench/threads.c): (b) N threads with an
# endpoint each and (c) N threads on the primary, against (a) N processes.
for n in sorted({int(k.rsplit(".", 1)[1]) for k in res if k.startswith("threads.")}):
    for metric, label in (("am_short_rate", "AM Short rate"), ("put8_rate", "put 8 B rate"),
                          ("am_rtt", "AM round trip")):
        row("threads", f"{label}, {n} processes (a)", f"threads.proc.{metric}.{n}", [])
        tgt = ">=0.9"  # issue 11: (b) at least 0.9x (a); a latency's ratio is (a)/(b)
        lat = metric == "am_rtt"
        row("threads", f"{label}, {n} threads, an endpoint each (b)", f"threads.ep.{metric}.{n}",
            [("(b)/(a)" if not lat else "(a)/(b)", f"threads.proc.{metric}.{n}", lat, tgt)])
        row("threads", f"{label}, {n} threads on the primary (c)", f"threads.shared.{metric}.{n}",
            [("(c)/(a)" if not lat else "(a)/(c)", f"threads.proc.{metric}.{n}", lat, "")])
# Start-up (bench/startup.c): a job of N ranks from pgasrun's start to its
# end; issue 23's goal: 1024 ranks in at most 5 s.
for n in sorted({int(k.rsplit(".", 1)[1]) for k in res if k.startswith("startup.total.")}):
    row("start-up", f"{n} ranks, pgasrun start to end", f"startup.total.{n}", [])
    if n == 1024:
        rows[-1][4].append(("target", None, "<=5"))
    for ph, label in (("launch", "launch (to the last rank's main)"), ("init", "pgas_init"),
                      ("attach", "pgas_attach, 1 MiB"), ("barrier", "first barrier"),
                      ("end", "pgas_exit and the exits")):
        row("start-up", f"  {label}", f"startup.{ph}.{n}", [])
    for m, label in (("maps", "rank 0's mappings"), ("rss", "rank 0's resident memory"),
                     ("pte", "rank 0's page tables")):
        row("start-up", f"  {label}", f"startup.{m}.{n}", [])
for fn, tgt in (("put_nbi8", "<=16"), ("sync_nbi_puts", "<=11"), ("get_nbi8", ""),
                ("am_short", "<=60"), ("poll_idle", ""), ("barrier_notify", ""),
                ("atomic_add", ""), ("quiet", "")):
    row("instructions", fn, f"icount.{fn}", [])
    rows[-1][4].append(("target", None, tgt))

# Collectives: the tuner's choice against every algorithm and the peers.
COLL_PEERS = {"broadcast": ("openmpi", "mpich", "oshmem"), "gather_all": ("openmpi", "mpich", "oshmem"),
              "exchange": ("openmpi", "mpich", "oshmem"), "reduce_all": ("openmpi", "mpich", "oshmem"),
              "barrier": ("openmpi", "mpich", "oshmem")}
# The tuner is set against the one algorithm with the best median over the
# rounds (the minimum over dozens of algorithms in each round is biased low
# by their noise alone; it is shown beside, without a target).  Ranks beyond
# the machine's cpus time the scheduler more than the algorithms: their
# targets are not judged there.
m = next((re.search(r"(\d+) cpus", x) for x in notes if x.startswith("machine:")), None)
cpus = int(m.group(1)) if m else None
for n in (2, 4):
    over = cpus is not None and n > cpus
    for kind in ("barrier", "broadcast", "scatter", "gather", "gather_all", "exchange",
                 "reduce", "reduce_all", "scan"):
        for size in sorted({int(k.rsplit(".", 1)[1]) for k in res
                            if k.startswith(f"coll{n}.{kind}.tuner.")}):
            akeys = [k for k in res if k.startswith(f"coll{n}.{kind}.") and k.endswith(f".{size}")
                     and ".tuner." not in k and res[k][0] is not None]
            algs = {k.split(".", 2)[2].rsplit(".", 1)[0]: res[k][0] for k in akeys}
            best_alg = min(algs, key=algs.get) if algs else None
            if akeys:  # the best algorithm of each round
                res.derive(f"_best{n}.{kind}.{size}", lambda *x: min(x), *akeys, partial=True)
            peers = [p for p in COLL_PEERS.get(kind, ("openmpi", "mpich"))
                     if f"{p}{n}.{kind}.{size}" in res]
            if peers:  # the best peer of each round
                res.derive(f"_bestpeer{n}.{kind}.{size}", lambda *x: min(x),
                           *[f"{p}{n}.{kind}.{size}" for p in peers], partial=True)
            row(f"coll n={n}", f"{kind} {size} B (tuner)", f"coll{n}.{kind}.tuner.{size}",
                [("/best alg", f"coll{n}.{kind}.{best_alg}.{size}", False,
                  "" if over else "<=1.1"),
                 ("/min of round", f"_best{n}.{kind}.{size}", False, ""),
                 ("/best peer", f"_bestpeer{n}.{kind}.{size}", False,
                  "<=1" if n == 2 and not over else "")]
                + [(f"/{p}", f"{p}{n}.{kind}.{size}", False, "") for p in peers])
            rows[-1][4].append((f"best={best_alg}", None, ""))
            if over:
                rows[-1][4].append((f"(oversubscribed: {n} ranks on {cpus} cpus)", None, ""))

# Our OpenSHMEM's collectives (bench/peers/shmem_coll.c): against libpgas's
# tuned collective and oshmem, same size, same run.  The program follows
# every call with shmem_barrier_all (1.4's pSync may be reused only then)
# and its "barrier" row is that barrier alone; so a call is set against
# libpgas's call plus that barrier, in each round (the same work).
for n in (2, 4):
    for k in sorted((k for k in res if k.startswith(f"pshmem{n}.")),
                    key=lambda k: (k.split(".")[1], int(k.rsplit(".", 1)[1]))):
        kind, size = k.split(".")[1], k.rsplit(".", 1)[1]
        base, label = f"coll{n}.{kind}.tuner.{size}", "/libpgas"
        if kind != "barrier" and f"pshmem{n}.barrier.0" in res:
            res.derive(f"_pgas_bar{n}.{kind}.{size}", lambda a, b: a + b, base,
                       f"pshmem{n}.barrier.0")
            base, label = f"_pgas_bar{n}.{kind}.{size}", "/libpgas+barrier_all"
        over = cpus is not None and n > cpus
        row(f"shmem n={n}", f"OpenSHMEM over libpgas: {kind} {size} B", k,
            [(label, base, False, "" if over else "<=1.1"),
             ("oshmem/this", f"oshmem{n}.{kind}.{size}", True, "")])
        if over:
            rows[-1][4].append((f"(oversubscribed: {n} PEs on {cpus} cpus)", None, ""))

# ---- GUPS (issue 12): HPCC RandomAccess, libpgas's variants against Debian's
# hpcc (MPIRandomAccess over Open MPI) and OpenSHMEM over oshmem, same table.
for n in (2, 4):
    for name, label in (("pgas_atomic", "libpgas remote atomics (xor)"),
                        ("pgas_gmp", "libpgas get-modify-put"),
                        ("pgas_am", "libpgas AM bucketed updates"),
                        ("hpcc", "hpcc MPIRandomAccess (Open MPI)"),
                        ("oshmem", "OpenSHMEM atomic xor (oshmem)"),
                        ("pshmem", "OpenSHMEM atomic xor (over libpgas)")):
        key = f"gups{n}.{name}"
        if key not in res and not name.startswith("pgas"):
            continue
        row(f"gups n={n}", label, key,
            [("/hpcc", f"gups{n}.hpcc", False, ""), ("/oshmem", f"gups{n}.oshmem", False, "")]
            if name.startswith("pgas") else
            [("/libpgas atomic", f"gups{n}.pgas_atomic", False, ""),
             ("/oshmem", f"gups{n}.oshmem", False, "")] if name == "pshmem" else [])
        rows[-1][4].append(("errors", v(f"{key}.errors"), ""))
        rows[-1][4].append(("table", v(f"gups{n}.{name.split('_')[0]}.table"), ""))
# ---- end GUPS


def fmt(x):
    return "skipped" if x is None else (f"{x:.3g}" if abs(x) < 1000 else f"{x:.0f}")


def meets(r, tgt, val):
    x = val if r is None else r
    if not tgt or x is None:
        return ""
    op, lim = tgt[:2], float(tgt[2:])
    return " ok" if (x <= lim if op == "<=" else x >= lim) else " MISSED"


if nrounds > 1:
    lines = [f"libpgas benchmark, 2 ranks (collectives also 4), {nrounds} rounds: the median "
             "[min-max] of the rounds; a ratio is the median of the ratios within each round", ""]
else:
    lines = ["libpgas benchmark, 2 ranks (collectives also 4), one run (ratios from the same run)", ""]


def spread_cell(sp):
    return f"[{fmt(sp[0])}-{fmt(sp[1])}]" if sp else ""


for sec, metric, val, unit, comps, sp in rows:
    cells = []
    for lbl, r, tgt in comps:
        if lbl.startswith(("best=", "(")):	# a remark, no ratio
            cells.append(lbl)
        elif lbl == "target":
            cells.append(f"target {tgt}{meets(None, tgt, val)}")
        else:
            cells.append(f"{lbl} {fmt(r)}" +
                         (f" (target {tgt}{meets(r, tgt, val) if r is not None else ''})"
                          if tgt else ""))
    lines.append(f"{sec:<12} {metric:<38} {fmt(val):>9} {unit:<7} "
                 + (f"{spread_cell(sp):<19} " if nrounds > 1 else "") + "  ".join(cells))
# ---- atomics (scripts/bench_atomics.sh, bench/atomic_bench.c) ----
# Columns: libpgas, the limit (the bare CPU atomic on the same word, same
# pattern, same run), libpgas's cost against it, each peer, and each peer's
# cost against libpgas (>1: libpgas is ahead).  Costs are time ratios: for
# throughput, the inverse ratio of the rates.
import os  # noqa: E402

ATOMIC_PEERS = (("oshmem", "OpenSHMEM"), ("pshmem", "OpenSHMEM over libpgas"),
                ("openmpi", "Open MPI"), ("mpich", "MPICH"))
ATOMIC_ROWS = [  # (label, libpgas key, limit key, peer metric, is a rate, target vs limit)
    ("fetch-add u64 latency, hot line", "pgas.atomic.fadd_u64_lat", "limit.atomic.fadd_lat",
     "fadd_lat", False, 1.2),
    ("fetch-add i64 latency, hot line", "pgas.atomic.fadd_i64_lat", "limit.atomic.fadd_lat",
     "fadd_lat", False, None),
    ("CAS latency, hot line", "pgas.atomic.cas_lat", "limit.atomic.cas_lat", "cas_lat", False, None),
    ("fetch-add ping-pong (line bounces)", "pgas.atomic.fadd_pingpong", "limit.atomic.fadd_pingpong",
     "fadd_pingpong", False, None),
    ("CAS ping-pong (line bounces)", "pgas.atomic.cas_pingpong", "limit.atomic.cas_pingpong",
     "cas_pingpong", False, None),
]
for nr in sorted({int(k.rsplit(".", 1)[1]) for k in res if k.startswith("pgas.atomic.add_")}):
    for kind, what in (("tput", "uncontended"), ("contended", "contended")):
        for op, lbl in (("add", "add"), ("fadd", "fetch-add")):
            if f"pgas.atomic.{op}_{kind}.{nr}" in res:  # 4 ranks: contended only
                    ATOMIC_ROWS.append((f"{lbl} {what}, {nr} ranks", f"pgas.atomic.{op}_{kind}.{nr}",
                                    f"limit.atomic.{op}_{kind}.{nr}", f"{op}_{kind}.{nr}", True, None))
if os.environ.get("BENCH_REPORT_ONLY") == "atomics":
    lines = lines[:2]


def atomic_show(x, rate):
    if x is None:
        return "skipped"
    return fmt(x) if rate else fmt(x * 1000)  # latencies were turned into us: show ns


def atomic_cost(a, b, rate):  # time of a / time of b
    return ratio(b, a) if rate else ratio(a, b)


lines += ["", "Atomics (latency ns, throughput Mops/s; cost = time ratio, >1 slower)",
          f"{'':<40} {'libpgas':>8} {'limit':>8} {'pgas/lim':>8} "
          + " ".join(f"{pn:>9}" for _, pn in ATOMIC_PEERS) + "  "
          + " ".join(f"{pn + '/pgas':>14}" for _, pn in ATOMIC_PEERS)]
for label, pk, lk, peer_metric, rate, tgt in ATOMIC_ROWS:
    pv, lv = v(pk), v(lk)
    peers = [v(f"{p}.atomic.{peer_metric}") for p, _ in ATOMIC_PEERS]
    c = atomic_cost(pv, lv, rate)
    cell = fmt(c)
    if tgt is not None:
        ahead = all(x is not None and atomic_cost(x, pv, rate) > 1 for x in peers)
        cell += f" (target <={tgt} and ahead of every peer:" + \
            (" ok)" if c is not None and c <= tgt and ahead else " MISSED)")
    rows.append(("atomics", label, pv, "Mops/s" if rate else "us",
                 [("/limit", c, f"<={tgt}" if tgt else "")]
                 + [(f"{pn}/pgas", atomic_cost(x, pv, rate), "") for x, (_, pn) in zip(peers, ATOMIC_PEERS)],
                 res.spread(pk)))
    lines.append(f"{label:<40} {atomic_show(pv, rate):>8} {atomic_show(lv, rate):>8} {cell:>8} "
                 + " ".join(f"{atomic_show(x, rate):>9}" for x in peers) + "  "
                 + " ".join(f"{fmt(atomic_cost(x, pv, rate)):>14}" for x in peers))
# ---- end atomics ----
if notes:
    lines += ["", "notes:"] + [f"  {n}" for n in notes]
open(txt_path, "w").write("\n".join(lines) + "\n")
json.dump({"results": {k: {"value": a, "unit": u} for k, (a, u) in res.items() if not k.startswith("_")},
           "rounds": nrounds,
           "rows": [{"section": s, "metric": m, "value": val, "unit": u,
                     "min": sp[0] if sp else val, "max": sp[1] if sp else val,
                     "ratios": [{"label": l, "ratio": r, "target": t} for l, r, t in c]}
                    for s, m, val, u, c, sp in rows],
           "notes": notes}, open(json_path, "w"), indent=1)
