"""The RESULT and NOTE lines of a benchmark run (scripts/bench.sh,
scripts/bench-multihost.sh), for the report scripts that print their
tables: one time unit (us).

A run may repeat its measurements in rounds: a line "ROUND r" (r >= 1)
starts round r, "ROUND 0" ends the rounds (what follows was measured
once).  Within a round a name measured more than once keeps its best;
across rounds a name's value is the median, with its spread (min, max),
and a ratio of two names is the median of their ratios within each round
both were measured in (round_ratio): the two were measured minutes apart
at most, under the same load.  A time at or below zero (a collective less
the barrier it was timed with, bench/peers/shmem_coll.c) is no
measurement: it is dropped, with a note."""
import statistics


class Results(dict):
    """{name: (value, unit)} (the median over rounds), with .rounds
    {name: {round: value}} and .notes."""

    def __init__(self):
        super().__init__()
        self.rounds = {}
        self.notes = []

    def spread(self, name):
        """(min, max, rounds measured) of name over the rounds, or None."""
        r = self.rounds.get(name)
        if not r or len(r) < 2:
            return None
        return min(r.values()), max(r.values()), len(r)

    def derive(self, name, fn, *names, unit="us", partial=False):
        """name = fn(values of names) in each round, its value the median.
        A round counts where every name was measured, or with partial
        where any was (fn then gets the values there are: a best of)."""
        sets = [set(self.rounds.get(n, {})) for n in names]
        rounds = set.union(*sets) if partial else set.intersection(*sets)
        per = {}
        for r in rounds:
            xs = [self.rounds[n][r] for n in names if r in self.rounds.get(n, {})]
            if xs:
                per[r] = fn(*xs)
        if per:
            self.rounds[name] = per
            self[name] = (statistics.median(per.values()), unit)


def _better(unit, a, b):
    return min(a, b) if unit == "us" else max(a, b)


def load(path):
    """The Results of the raw file at path."""
    res = Results()
    rnd = 0
    for line in open(path):
        f = line.split()
        if f and f[0] == "ROUND" and len(f) > 1:
            rnd = int(f[1])
        elif f and f[0] == "RESULT":
            value, unit = float(f[2]), f[3]
            if unit == "ns":  # one time unit, so that every ratio is unit-free
                value, unit = value / 1000.0, "us"
            if unit == "us" and value <= 0:
                res.notes.append(f"{f[1]}: {value:g} us in round {rnd} is no time; dropped")
                continue
            per = res.rounds.setdefault(f[1], {})
            per[rnd] = _better(unit, per[rnd], value) if rnd in per else value
            res[f[1]] = (None, unit)
        elif f and f[0] == "NOTE":
            res.notes.append(line[5:].strip())
    for name, per in res.rounds.items():
        unit = res[name][1]
        vals = [v for r, v in per.items() if r > 0]
        if vals:  # measured in rounds: the median (a value outside them is not mixed in)
            res[name] = (statistics.median(vals), unit)
        else:
            res[name] = (per[0], unit)
        if 0 in per and vals:
            del per[0]
    return res


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def round_ratio(res, a, b, inverse=False):
    """a / b (b / a if inverse): where both names were measured in rounds,
    the median of their ratios in the rounds they share (None if they share
    none); where either was measured once, outside the rounds, the ratio of
    their values."""
    ra, rb = res.rounds.get(a, {}), res.rounds.get(b, {})
    if any(r > 0 for r in ra) and any(r > 0 for r in rb):
        rs = [ratio(rb[r], ra[r]) if inverse else ratio(ra[r], rb[r])
              for r in ra if r in rb and r > 0]
        rs = [x for x in rs if x is not None]
        return statistics.median(rs) if rs else None
    va = res[a][0] if a in res else None
    vb = res[b][0] if b in res else None
    return ratio(vb, va) if inverse else ratio(va, vb)
