#!/usr/bin/env python3
"""Judges a server's resident memory over a run by its trend, not by its first minute.

    rss_trend.py judge RSS.csv [--start T0] [--end T1] [--max-slope MB_PER_H]
                               [--noise-floor MB] [--add-leak MB_PER_H] [--min-minutes M]
    rss_trend.py --self-test

RSS.csv has a header and the columns `unix_time,vmrss_kb[,vmhwm_kb]` (deploy/soak.sh
samples every 10 s). The run is the samples from T0 to T1 (default: all of them), of
length T. The rule (docs/reliability.md, "Soak"):

- the first third of the run is warm-up and is not judged (allocator arenas, caches,
  the database pool and the first imports fill it);
- the remaining two thirds are cut into 8 bins, and each bin's floor is its 10th
  percentile: the memory the process comes back to (arena growth that is given back, a
  spike, a burst of uploads raise the top, not the floor);
- `slope` is the least-squares slope of the floors against time, in MB per hour;
- `step` is the median floor of the last third (4 bins) minus that of the middle third;
- the run FAILS when both say the floor rises: slope > --max-slope (default 3 MB/h) and
  step > max(--noise-floor (default 0.5 MB), max-slope x the length of a third).

So warm-up that levels off passes however steep its start, and a leak must show in both
the fitted slope and the thirds. A linear leak of L MB/h gives slope = L and step =
L x T/3, so on a 30-minute run anything well above 3 MB/h fails. The rule needs a run of
at least --min-minutes (default 25): on synthetic series with allocator steps of up to
2 MB held for up to 2 minutes it passed 200 of 200 warm-ups and failed 196 of 200 runs
leaking 5 MB/h at 30 minutes, but passed only 182 of 200 warm-ups at 20 minutes (a step
late in a short run looks like a leak); a shorter run's memory is reported, not judged
(exit 2).
`--add-leak` adds a synthetic linear leak to the measured series before judging (a check
that the rule would catch one on this very run). `--self-test` feeds the rule synthetic
series: warm-up curves that level off (must pass, 20 seeds each) and the same with a linear
leak of 5 MB/h over 30 and 60 minutes (must fail, 20 seeds each), and the plateau a real
run showed;
it exits 1 if any verdict is wrong.
"""
import argparse
import csv
import math
import random
import statistics
import sys


def floor(values):
    """The 10th percentile: the memory the process comes back to."""
    ordered = sorted(values)
    return ordered[int(0.1 * (len(ordered) - 1))]


def judge(series, max_slope=3.0, noise_floor=0.5, bins=8):
    """series: [(seconds, rss_mb)], sorted by time. Returns (passed, figures)."""
    if len(series) < 4 * bins:
        return False, {"reason": f"only {len(series)} samples; at least {4 * bins} are needed"}
    t0, t1 = series[0][0], series[-1][0]
    length = t1 - t0
    third = length / 3
    width = 2 * third / bins
    floors = []
    for i in range(bins):
        lo, hi = t0 + third + i * width, t0 + third + (i + 1) * width
        values = [m for t, m in series if lo <= t < hi or (i == bins - 1 and t == t1)]
        if len(values) < 3:
            return False, {"reason": "too few samples in a bin of the judged two thirds"}
        floors.append(((lo + hi) / 2, floor(values)))
    middle = [m for _, m in floors[: bins // 2]]
    last = [m for _, m in floors[bins // 2 :]]
    mean_t = sum(t for t, _ in floors) / bins
    mean_m = sum(m for _, m in floors) / bins
    sxx = sum((t - mean_t) ** 2 for t, _ in floors)
    sxy = sum((t - mean_t) * (m - mean_m) for t, m in floors)
    slope = (sxy / sxx) * 3600
    step = statistics.median(last) - statistics.median(middle)
    step_limit = max(noise_floor, max_slope * third / 3600)
    grows = slope > max_slope and step > step_limit
    figures = {
        "minutes": length / 60,
        "first_mb": series[0][1],
        "peak_mb": max(m for _, m in series),
        "middle_median_mb": statistics.median(middle),
        "last_median_mb": statistics.median(last),
        "slope_mb_per_h": slope,
        "step_mb": step,
        "max_slope": max_slope,
        "step_limit_mb": step_limit,
    }
    if grows:
        figures["reason"] = (
            f"memory grows: its floor rises {slope:.2f} MB/h (> {max_slope}) and the last third's floor is "
            f"{step:.2f} MB above the middle third's (> {step_limit:.2f} MB)")
    return not grows, figures


def describe(passed, f):
    if "minutes" not in f:
        return f"RSS trend: cannot judge: {f['reason']}"
    text = (f"RSS over {f['minutes']:.1f} min: first {f['first_mb']:.1f} MB, peak {f['peak_mb']:.1f} MB; "
            f"floor of the middle third {f['middle_median_mb']:.1f} MB, of the last third {f['last_median_mb']:.1f} MB "
            f"(step {f['step_mb']:+.2f} MB, limit {f['step_limit_mb']:.2f}); "
            f"slope of the floor over the last two thirds {f['slope_mb_per_h']:+.2f} MB/h (limit {f['max_slope']}): ")
    return text + ("no growth" if passed else "FAILS, " + f["reason"])


def read_csv(path, start=None, end=None, add_leak=0.0):
    series = []
    with open(path) as handle:
        for row in csv.DictReader(handle):
            try:
                t, kb = float(row["unix_time"]), float(row["vmrss_kb"])
            except (KeyError, ValueError):
                continue
            if (start is None or t >= start) and (end is None or t <= end):
                series.append((t, kb / 1024))
    if series and add_leak:
        t0 = series[0][0]
        series = [(t, m + add_leak * (t - t0) / 3600) for t, m in series]
    return series


def synthetic(minutes, seed, leak_mb_per_h=0.0, interval=10):
    """A warm-up that levels off (40 MB rising by 4 to 7 MB with a time constant of 1 to 4
    minutes), allocator noise (Gaussian, 0.3 MB) and arena steps that rise and fall back
    (up to 2 MB, held for up to 2 minutes), plus an optional linear leak."""
    rng = random.Random(seed)
    rise, tau = rng.uniform(4, 7), rng.uniform(60, 240)
    bumps = [(rng.uniform(0, minutes * 60), rng.uniform(20, 120), rng.uniform(0.5, 2.0))
             for _ in range(max(1, minutes // 5))]
    series = []
    for i in range(int(minutes * 60 / interval) + 1):
        t = i * interval
        m = 40 + rise * (1 - math.exp(-t / tau)) + rng.gauss(0, 0.3) + leak_mb_per_h * t / 3600
        m += sum(h for s, d, h in bumps if s <= t < s + d)
        series.append((float(t), m))
    return series


def self_test():
    cases = [
        ("warm-up, 30 min", 30, 0.0, True),
        ("warm-up, 60 min", 60, 0.0, True),
        ("warm-up + 5 MB/h leak, 30 min", 30, 5.0, False),
        ("warm-up + 5 MB/h leak, 60 min", 60, 5.0, False),
    ]
    wrong = 0
    for name, minutes, leak, should_pass in cases:
        verdicts = [judge(synthetic(minutes, seed, leak)) for seed in range(20)]
        bad = [f for ok, f in verdicts if ok != should_pass]
        slopes = [f["slope_mb_per_h"] for _, f in verdicts]
        print(f"rss_trend self-test: {name}: {20 - len(bad)}/20 judged "
              f"{'pass' if should_pass else 'fail'} as they must (slopes {min(slopes):+.2f} to {max(slopes):+.2f} MB/h)")
        wrong += len(bad)
    # The fresh soak run of issue 20: 40.6 MB after the first minute, 44.9 MB later, levelling
    # off near 45-47 MB: the old rule (+10 %) failed it; the trend must not.
    observed = [(float(t), 40.6 + 5.5 * (1 - math.exp(-t / 200)) + 0.8 * math.sin(t / 97)) for t in range(0, 1801, 10)]
    ok, f = judge(observed)
    print(f"rss_trend self-test: the observed plateau (40.6 MB after a minute, then 45-47 MB), 30 min: "
          f"{'pass' if ok else 'FAIL'} (slope {f['slope_mb_per_h']:+.2f} MB/h)")
    wrong += 0 if ok else 1
    print("rss_trend self-test: " + ("passed" if wrong == 0 else f"FAILED ({wrong} wrong verdicts)"))
    return wrong == 0


def main():
    if "--self-test" in sys.argv[1:]:
        sys.exit(0 if self_test() else 1)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["judge"])
    parser.add_argument("csv")
    parser.add_argument("--start", type=float)
    parser.add_argument("--end", type=float)
    parser.add_argument("--max-slope", type=float, default=3.0)
    parser.add_argument("--noise-floor", type=float, default=0.5)
    parser.add_argument("--add-leak", type=float, default=0.0)
    parser.add_argument("--min-minutes", type=float, default=25.0)
    args = parser.parse_args()
    series = read_csv(args.csv, args.start, args.end, args.add_leak)
    passed, figures = judge(series, args.max_slope, args.noise_floor)
    if args.add_leak:
        print(f"(a synthetic leak of {args.add_leak} MB/h added to the measured series)")
    print(describe(passed, figures))
    if figures.get("minutes", 0) < args.min_minutes:
        print(f"RSS trend: NOT JUDGED: the run is shorter than {args.min_minutes:g} minutes")
        sys.exit(2)
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
