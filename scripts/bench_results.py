"""The RESULT and NOTE lines of a benchmark run (scripts/bench.sh,
scripts/bench-multihost.sh), for the report scripts that print their
tables: one time unit (us), the best of repeated runs."""


def load(path):
    """{name: (value, unit)} and the notes of the raw file at path."""
    res, notes = {}, []
    for line in open(path):
        f = line.split()
        if f and f[0] == "RESULT":
            value, unit = float(f[2]), f[3]
            if unit == "ns":  # one time unit, so that every ratio is unit-free
                value, unit = value / 1000.0, "us"
            if f[1] in res:  # repeated runs: keep the best
                old = res[f[1]][0]
                value = min(old, value) if unit == "us" else max(old, value)
            res[f[1]] = (value, unit)
        elif f and f[0] == "NOTE":
            notes.append(line[5:].strip())
    return res, notes


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b
