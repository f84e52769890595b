#!/usr/bin/env python3
"""bench/compare's report, on runs made up here (no MPI): how the paired ratio picks its peers,
and the overlap table of the nonblocking collectives.

  report_test.py BENCH_DIR
"""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(sys.argv.pop(1)).resolve()))
from benchlib.report import BenchReport  # noqa: E402
from benchlib.runner import Run  # noqa: E402

TIME = {"key": "latency_us", "title": "Latency(us)", "lower_is_better": True}
CONFIGS = ["gpurun", "calm", "loaded"]


def run(config, rep, value, disturbed=False, overlap=None, slowed=False):
    return Run(config, "osu_x", rep, ok=True, status="ok", values={8: value}, metric=TIME,
               disturbed=disturbed, overlap=overlap or {}, slowed=slowed,
               slowdown=1.8 if slowed else 1.0)


def ratio_cell(table, size):
    row = next(ln for ln in table.splitlines() if ln.startswith(f"| {size} |"))
    return row.strip("|").split("|")[-1].strip()


class PairedRatio(unittest.TestCase):
    def test_a_peer_disturbed_in_every_run_still_counts(self):
        # "loaded" is faster but was flagged in every round: it counts, as in its median.
        runs = [r for rep in (1, 2, 3) for r in (run("gpurun", rep, 1.0), run("calm", rep, 2.0),
                                                run("loaded", rep, 0.5, disturbed=True))]
        rep = BenchReport("osu_x", CONFIGS, runs, {})
        self.assertAlmostEqual(rep.ratio(8), 2.0)
        self.assertIn("paired ratios include them", rep.table(None, None))

    def test_a_peer_disturbed_in_some_runs_counts_only_when_calm(self):
        runs = [r for rep in (1, 2, 3) for r in (run("gpurun", rep, 1.0), run("calm", rep, 2.0))]
        runs += [run("loaded", 1, 4.0), run("loaded", 2, 0.1, disturbed=True),
                 run("loaded", 3, 0.1, disturbed=True)]
        rep = BenchReport("osu_x", CONFIGS, runs, {})
        # "loaded"'s median counts its calm run only (4.0): "calm" (2.0) is the best peer.
        self.assertAlmostEqual(rep.ratio(8), 0.5)

    def test_pairs_with_the_best_configuration_not_the_best_run_of_each_round(self):
        # Equal gpurun runs; "calm" has the best median (1.0), "loaded" is better in round 2.
        values = {"gpurun": [1.0, 1.0, 1.0], "calm": [0.8, 1.2, 1.0], "loaded": [1.2, 0.8, 1.1]}
        runs = [run(c, rep + 1, v[rep]) for c, v in values.items() for rep in range(3)]
        rep = BenchReport("osu_x", CONFIGS, runs, {})
        self.assertEqual(rep.best_peer(8), "calm")
        # Paired with "calm": 1.25, 0.83, 1.0. The best run of each round would give 1.25.
        self.assertAlmostEqual(rep.ratio(8), 1.0)


class Medians(unittest.TestCase):
    def test_sub_microsecond_medians_keep_three_significant_digits(self):
        runs = [run("gpurun", 1, 0.16), run("calm", 1, 0.1824), run("loaded", 1, 0.04123)]
        table = BenchReport("osu_x", CONFIGS, runs, {}).table(None, None)
        row = next(ln for ln in table.splitlines() if ln.startswith("| 8 |"))
        self.assertEqual(row.strip("|").split("|")[1:4], [" 0.160 ", " 0.182 ", " 0.0412 "], table)

    def test_larger_medians_keep_two_decimals_then_none(self):
        for value, shown in ((2.5, "2.50"), (999.994, "999.99"), (1234.4, "1234"), (0.0, "0.00")):
            table = BenchReport("osu_x", ["gpurun"], [run("gpurun", 1, value)], {}).table(None, None)
            row = next(ln for ln in table.splitlines() if ln.startswith("| 8 |"))
            self.assertEqual(row.strip("|").split("|")[1].strip(), shown, table)


    def test_slowed_runs_stay_in_the_median_disturbed_ones_leave(self):
        runs = [run("gpurun", 1, 1.0), run("gpurun", 2, 5.0, slowed=True),
                run("gpurun", 3, 4.0, slowed=True), run("gpurun", 4, 9.0, disturbed=True)]
        rep = BenchReport("osu_x", ["gpurun"], runs, {})
        self.assertEqual(rep.count["gpurun"], 3)
        self.assertAlmostEqual(rep.med["gpurun"][8], 4.0)  # of 1, 5, 4; not 9
        notes = rep.table(None, None)
        self.assertIn("1 disturbed by other load", notes)
        self.assertIn("2 on a slowed CPU (up to 1.8x; kept)", notes)


class OverlapTable(unittest.TestCase):
    def test_nonblocking_collectives_get_an_overlap_table(self):
        runs = [run("gpurun", 1, 3.0, overlap={8: 40.0}), run("calm", 1, 4.0, overlap={8: 20.0})]
        table = BenchReport("osu_x", ["gpurun", "calm"], runs, {}).table(None, None)
        self.assertEqual(table.count("| Size |"), 2, table)
        overlap = table[table.index("Overlap(%), median"):]
        self.assertEqual(ratio_cell(overlap, 8), "2.00", table)  # higher is better: 40 / 20
        self.assertEqual(ratio_cell(table, 8), "0.75", table)  # the overall time: 3 / 4

    def test_other_benchmarks_have_none(self):
        table = BenchReport("osu_x", ["gpurun"], [run("gpurun", 1, 3.0)], {}).table(None, None)
        self.assertNotIn("Overlap", table)


if __name__ == "__main__":
    unittest.main(verbosity=2)
