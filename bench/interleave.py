"""What the peer benchmarks (run_mask_bench.py, run_stateful_bench.py) share:
engines timed interleaved round by round, and the table of medians.

Every round times a burst of calls of each engine in turn, so that load
changes on a shared machine hit all of them alike; a row reports the median
over rounds of each engine's median call time, and for each peer the median
of its per-round time / the reference engine's (above 1: the reference is
faster)."""
import json
import statistics
import time


def interleaved(engines, rounds, burst_seconds):
    """{name: call} -> {name: [median call time in us, one per round]}."""
    per_round = {name: [] for name in engines}
    for _ in range(rounds):
        for name, call in engines.items():
            samples = []
            start = time.perf_counter()
            while time.perf_counter() - start < burst_seconds or len(samples) < 3:
                t0 = time.perf_counter()
                call()
                samples.append((time.perf_counter() - t0) * 1e6)
            per_round[name].append(statistics.median(samples))
    return per_round


def summarize(row, times, reference):
    """Adds each engine's median and each peer's median ratio to `row`."""
    for name, ts in times.items():
        row[name] = statistics.median(ts)
        if name != reference:
            row[name + " / " + reference] = statistics.median(
                t / s for t, s in zip(ts, times[reference]))
    print(json.dumps(row), flush=True)
    return row


def print_table(rows, key, reference, peers, digits=0):
    """A Markdown table: one line per row, `key` first, times in us."""
    print("\n| %s | %s | %s |" % (key, reference, " | ".join(peers)))
    print("|---" * (len(peers) + 2) + "|")
    for r in rows:
        cells = ["%.*f us (%.2fx)" % (digits, r[p], r[p + " / " + reference]) for p in peers]
        print("| %s | %.*f us | %s |" % (r[key], digits, r[reference], " | ".join(cells)))
    print("\nratios are peer time / %s time per round (above 1: %s is faster)"
          % (reference, reference))
