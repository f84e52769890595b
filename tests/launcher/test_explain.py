#!/usr/bin/env python3
"""gpurun --explain and GPU placement on the fixture topologies (tests/topo/fixtures) and on this
host (CTest label `mpi`; the environment and helpers are test_gpurun.py's)."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_gpurun import DGX_GPUS, FIXTURES, GPURUN, PCIE_GPUS, PMIX_RANK, GpurunTest  # noqa: E402


def fixture(name):
    return os.path.join(FIXTURES, name)


def explain_sections(text):
    """Splits --explain output into {"header", "Placement", "Topology", "Paths between ranks"}."""
    sections, name = {"header": []}, "header"
    for line in text.splitlines():
        if line in ("Placement", "Topology", "Paths between ranks"):
            name = line
            sections[name] = []
        else:
            sections[name].append(line)
    return sections


def placement_rows(text):
    """--explain placement rows as {rank: {"gpu", "numa", "cpus", "nic"}}."""
    rows = {}
    for line in explain_sections(text)["Placement"][1:]:
        if not line.strip():
            continue
        m = re.match(r"^(\d+)\s+\S+\s+(-|(?:GPU\d+ \S+?)(?:,GPU\d+ \S+)*)\s+(\S+)\s+(\S+)\s+(.*)$",
                     line)
        assert m, line
        rows[int(m.group(1))] = {"gpu": m.group(2), "numa": m.group(3), "cpus": m.group(4),
                                 "nic": m.group(5)}
    return rows


def matrix_row(text, label):
    for line in explain_sections(text)["Topology"]:
        if line.startswith(label + " "):
            return line.split()[1:]
    raise AssertionError(f"no matrix row {label} in {text}")


def path_lines(text):
    """{"0-1": (host path, device path, [refusal lines])} from --explain."""
    out, last = {}, None
    for line in explain_sections(text)["Paths between ranks"][1:]:
        m = re.match(r"^(\d+-\d+)\s+(.+?)\s{2,}(.+)$", line)
        if m:
            last = m.group(1)
            out[last] = (m.group(2), m.group(3), [])
        elif line.startswith("        ") and last:
            out[last][2].append(line.strip())
    return out


class FixtureTest(GpurunTest):
    def setUp(self):
        super().setUp()
        self.env.pop("CUDA_VISIBLE_DEVICES", None)  # the tests set it where they mean to


class Explain(FixtureTest):
    def setUp(self):
        super().setUp()
        # The fixtures' device paths name cuda_ipc, a transport only a CUDA build has.
        if os.environ.get("CUDA_BUILT_FOR_TESTS") == "0":
            self.skipTest("built without CUDA: no cuda_ipc transport to choose")

    def explain(self, *args, topo=None, env=None, code=0):
        env = dict(env or self.env)
        if topo:
            env["GPURUN_TOPO_FILE"] = fixture(topo)
        r = self.run_gpurun("--explain", *args, env=env)
        self.assertEqual(r.returncode, code, r.stderr)
        return r

    def test_dgx_h100(self):
        out = self.explain(topo="dgx-h100.xml").stdout
        self.assertIn("8 ranks", out)
        self.assertIn("not this machine: bindings are shown, not applied", out)
        rows = placement_rows(out)
        self.assertEqual(sorted(rows), list(range(8)))
        for r, row in rows.items():
            self.assertEqual(row["gpu"], f"GPU{r} {DGX_GPUS[r]}")
            self.assertEqual(row["nic"], f"NIC{r} mlx5_{r} (PIX)")
            self.assertEqual(row["numa"], "0" if r < 4 else "1")
            self.assertEqual(row["cpus"], "0-111" if r < 4 else "112-223")
        self.assertEqual(matrix_row(out, "GPU0"),
                         ["X"] + ["NV18"] * 7 + ["PIX"] + ["PHB"] * 3 + ["SYS"] * 4 + ["0-111", "0"])
        self.assertEqual(matrix_row(out, "NIC5")[:8], ["SYS"] * 4 + ["PHB", "PIX", "PHB", "PHB"])
        paths = path_lines(out)
        self.assertEqual(len(paths), 28)
        for pair, (host, device, refused) in paths.items():
            self.assertEqual(device, "cuda_ipc NVL", pair)
            self.assertEqual(refused, [], pair)
        self.assertEqual(paths["0-1"][0], "shm same NUMA")
        self.assertEqual(paths["3-4"][0], "shm SYS")

    def test_ranks_a_host_and_cores_a_rank(self):
        out = self.explain("-N", "3", "--map-by", "core", "--cpus-per-rank", "4",
                           topo="dgx-h100.xml").stdout
        self.assertIn("3 ranks", out)
        rows = placement_rows(out)
        self.assertEqual([rows[r]["cpus"] for r in sorted(rows)], ["0-7", "8-15", "16-23"])

    def test_pcie_two_socket(self):
        out = self.explain("-np", "4", topo="pcie-2socket.xml").stdout
        self.assertEqual(matrix_row(out, "GPU0")[:7], ["X", "PXB", "SYS", "SYS", "PXB", "PHB", "SYS"])
        self.assertEqual(matrix_row(out, "GPU2")[:7], ["SYS", "SYS", "X", "PHB", "SYS", "SYS", "PHB"])
        self.assertEqual(matrix_row(out, "GPU3")[:7], ["SYS", "SYS", "PHB", "X", "SYS", "SYS", "PIX"])
        self.assertIn("NIC1: eno1 (0000:0a:00.0)", out)
        self.assertIn("GPU0-GPU2: IOH topology not supported", out)
        rows = placement_rows(out)
        self.assertEqual(rows[0]["nic"], "NIC0 mlx5_0 (PXB)")
        self.assertEqual(rows[2]["nic"], "NIC2 mlx5_1 (PHB)")
        self.assertEqual(rows[3]["nic"], "NIC2 mlx5_1 (PIX)")
        paths = path_lines(out)
        self.assertEqual(paths["0-1"][1], "cuda_ipc PXB")
        self.assertEqual(paths["2-3"][1], "cuda_ipc PHB")
        host, device, refused = paths["0-2"]
        self.assertEqual((host, device), ("shm SYS", "shm SYS, staged through host memory"))
        self.assertEqual(refused, ["device buffers: cuda_ipc SYS refused: peer access off between "
                                   "GPU 0 and GPU 2 (NVML: IOH topology not supported)"])

    def test_knobs_show_as_reasons(self):
        env = dict(self.env, GPURUN_TOPO_P2P_LEVEL="PXB")
        paths = path_lines(self.explain("-np", "4", topo="pcie-2socket.xml", env=env).stdout)
        self.assertEqual(paths["0-1"][1], "cuda_ipc PXB")
        self.assertEqual(paths["2-3"][1], "shm same NUMA, staged through host memory")
        self.assertIn("beyond GPURUN_TOPO_P2P_LEVEL=PXB", paths["2-3"][2][0])
        env = dict(self.env, GPURUN_TOPO_P2P="0")
        paths = path_lines(self.explain("-np", "2", topo="dgx-h100.xml", env=env).stdout)
        self.assertEqual(paths["0-1"][2], ["device buffers: cuda_ipc NVL refused: disabled by "
                                           "GPURUN_TOPO_P2P=0"])

    def test_gpu_and_nic_under_one_switch(self):
        out = self.explain(topo="gpu-nic-switch.xml").stdout
        self.assertIn("1 rank on host", out)
        self.assertEqual(placement_rows(out)[0]["nic"], "NIC1 mlx5_0 (PIX)")
        self.assertEqual(matrix_row(out, "GPU0")[:3], ["X", "PHB", "PIX"])
        self.assertIn("NVLink and P2P data: none in the file", out)
        self.assertIn("(one rank: no pairs)", out)

    def test_node_without_gpu(self):
        out = self.explain("-np", "3", topo="no-gpu.xml").stdout
        self.assertIn("placement: by core", out)
        rows = placement_rows(out)
        self.assertEqual([rows[r]["gpu"] for r in range(3)], ["-"] * 3)
        self.assertEqual([rows[r]["cpus"] for r in range(3)], ["0-1", "2-3", "4-5"])
        self.assertEqual(path_lines(out)["0-2"][:2], ("shm same NUMA", "- (no GPU on this host)"))

    def test_default_is_one_rank_per_gpu(self):
        rows = placement_rows(self.explain("--gpus-per-rank", "2", topo="dgx-h100.xml").stdout)
        self.assertEqual(sorted(rows), [0, 1, 2, 3])
        self.assertEqual(rows[1]["gpu"], f"GPU2 {DGX_GPUS[2]},GPU3 {DGX_GPUS[3]}")
        self.assertEqual(rows[1]["nic"], "NIC2 mlx5_2 (PIX)")

    def test_this_host(self):
        out = self.explain("-np", "2").stdout
        self.assertIn("topology: this host\n", out)
        self.assertNotIn("not this machine", out)
        has_gpu = "GPUs: 0," not in out
        self.assertIn("placement: by GPU" if has_gpu else "placement: by core", out)
        library = os.path.join(os.path.dirname(GPURUN), "..", "lib", "libmpi.so.12")
        if os.path.exists(library):
            self.assertRegex(out, r"transports: self\S* shm .*, from \S*libmpi.so.12\n")

    def test_copy_between_cores(self):
        if len(os.sched_getaffinity(0)) > 1:
            self.assertRegex(self.explain("-np", "2").stdout,
                             r"copy between cores: (pipeline|cma) \(64K between CPUs \d+ and \d+: "
                             r"pipeline [0-9.]+ us, CMA ([0-9.]+ us; 16K: one packet [0-9.]+ us, "
                             r"CMA [0-9.]+ us|unavailable \(.*\)); ")
        forced = self.explain("-np", "2", env=dict(self.env, GPURUN_TOPO_COPY="cma")).stdout
        self.assertIn("copy between cores: cma (set by GPURUN_TOPO_COPY=cma;", forced)
        one = self.explain("-np", "1").stdout
        self.assertIn("copy between cores: unknown (not measured: one rank on this host;", one)

    def test_dump_then_explain_from_the_dump(self):
        dump = os.path.join(self.tmpdir, "topo.xml")
        first = self.explain("-np", "4", topo="pcie-2socket.xml",
                             env=dict(self.env, GPURUN_TOPO_DUMP=dump)).stdout
        second = self.explain("-np", "4", env=dict(self.env, GPURUN_TOPO_FILE=dump)).stdout
        for section in ("Placement", "Topology", "Paths between ranks"):
            self.assertEqual(explain_sections(first)[section], explain_sections(second)[section])
        # This host's own topology, dumped and explained from the file: the same matrix.
        here = self.explain("-np", "2", env=dict(self.env, GPURUN_TOPO_DUMP=dump)).stdout
        again = self.explain("-np", "2", env=dict(self.env, GPURUN_TOPO_FILE=dump)).stdout
        self.assertEqual(explain_sections(here)["Topology"], explain_sections(again)["Topology"])
        os.remove(dump)

    def test_program_is_checked_not_run(self):
        marker = os.path.join(self.tmpdir, "ran")
        self.explain("-np", "2", "sh", "-c", f"touch {marker}")
        self.assertFalse(os.path.exists(marker))
        r = self.run_gpurun("--explain", "no-such-program-xyz")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not found in PATH", r.stderr)


class GpuPlacement(FixtureTest):
    """Ranks placed as on the fixture machines (GPURUN_TOPO_FILE): the keys they are given."""

    def info_lines(self, *args, topo=None, env=None):
        env = dict(env or self.env)
        if topo:
            env["GPURUN_TOPO_FILE"] = fixture(topo)
        r = self.run_gpurun(*args, PMIX_RANK, "info", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        fields = [dict(zip(l.split()[::2], l.split()[1::2])) for l in r.stdout.splitlines()]
        return sorted(fields, key=lambda f: int(f["rank"]))

    def test_report_bindings_name_gpu_and_nic(self):
        env = dict(self.env, GPURUN_TOPO_FILE=fixture("dgx-h100.xml"))
        r = self.run_gpurun("--report-bindings", "-np", "2", "true", env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = sorted(l for l in r.stderr.splitlines() if l.startswith("gpurun: rank"))
        self.assertEqual(len(lines), 2, r.stderr)
        for rank, line in enumerate(lines):
            self.assertIn(f"rank {rank} on ", line)
            self.assertIn(f"(not applied here), GPU {DGX_GPUS[rank]}, NIC mlx5_", line)

    def test_ranks_are_told_their_gpu_and_nic(self):
        for info in self.info_lines("-np", "3", topo="dgx-h100.xml"):
            r = int(info["rank"])
            self.assertEqual(info["gpus"], DGX_GPUS[r])
            self.assertEqual(info["nic"], f"mlx5_{r}")
            self.assertEqual(info["cuda_visible"], "-", "gpurun must not hide GPUs")

    def test_user_visible_devices_are_kept_and_followed(self):
        env = dict(self.env, CUDA_VISIBLE_DEVICES="2,3")
        infos = self.info_lines("-np", "2", topo="dgx-h100.xml", env=env)
        self.assertEqual([i["gpus"] for i in infos], DGX_GPUS[2:4])
        self.assertEqual([i["cuda_visible"] for i in infos], ["2,3", "2,3"])
        env = dict(env, GPURUN_TOPO_FILE=fixture("dgx-h100.xml"))
        out = self.run_gpurun("--explain", env=env).stdout
        self.assertIn("hidden by CUDA_VISIBLE_DEVICES (no rank placed on them): GPU0 GPU1 GPU4 "
                      "GPU5 GPU6 GPU7\n", out)
        self.assertEqual(sorted(placement_rows(out)), [0, 1])

    def test_several_gpus_per_rank(self):
        infos = self.info_lines("--gpus-per-rank", "2", "-np", "2", topo="pcie-2socket.xml")
        self.assertEqual([i["gpus"] for i in infos],
                         [",".join(PCIE_GPUS[:2]), ",".join(PCIE_GPUS[2:])])
        self.assertEqual([i["nic"] for i in infos], ["mlx5_0", "mlx5_1"])

    def test_more_ranks_than_gpus_spread_evenly(self):
        infos = self.info_lines("-np", "5", topo="pcie-2socket.xml")
        self.assertEqual([i["gpus"] for i in infos], [PCIE_GPUS[0]] * 2 + PCIE_GPUS[1:])
        # The same placement, shown by --explain (no ranks started) for more ranks.
        env = dict(self.env, GPURUN_TOPO_FILE=fixture("pcie-2socket.xml"))
        for np, shares in (("6", [0, 0, 1, 1, 2, 3]), ("8", [0, 0, 1, 1, 2, 2, 3, 3])):
            r = self.run_gpurun("--explain", "--map-by", "gpu", "-np", np, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = placement_rows(r.stdout)
            self.assertEqual([rows[k]["gpu"] for k in sorted(rows)],
                             [f"GPU{g} {PCIE_GPUS[g]}" for g in shares])

    def test_map_by_core_gives_no_gpu(self):
        for info in self.info_lines("--map-by", "core", "-np", "2", topo="dgx-h100.xml"):
            self.assertEqual((info["gpus"], info["nic"]), ("-", "-"))

    def test_real_host_without_gpu_is_unchanged(self):
        ncpus = len(os.sched_getaffinity(0))
        for info in self.info_lines("-np", "1"):
            self.assertEqual((info["gpus"], info["nic"]), ("-", "-"))
            if ncpus > 1:
                self.assertEqual(info["cpus"], "1", "one rank is bound to one core")

    def assert_usage_error(self, *args, mentions, topo=None):
        env = dict(self.env)
        if topo:
            env["GPURUN_TOPO_FILE"] = fixture(topo)
        r = self.run_gpurun(*args, "true", env=env)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn(mentions, r.stderr)
        self.assertEqual(os.listdir(self.tmpdir), [], "something was started")

    def test_impossible_gpu_requests(self):
        self.assert_usage_error("--gpus-per-rank", "3", "-np", "3", topo="dgx-h100.xml",
                                mentions="--gpus-per-rank 3 with -np 3 needs 9 GPUs; this host has 8")
        self.assert_usage_error("--gpus-per-rank", "1", "-np", "2", topo="no-gpu.xml",
                                mentions="this host has no GPU")
        self.assert_usage_error("--map-by", "gpu", "-np", "1", topo="no-gpu.xml",
                                mentions="--map-by gpu: this host has no GPU")
        self.assert_usage_error("--gpus-per-rank", "0", mentions="--gpus-per-rank")
        self.assert_usage_error("--map-by", "board", mentions="board")
        self.assert_usage_error("--map-by", "socket", "--gpus-per-rank", "1",
                                mentions="not --map-by numa, socket")
        self.assert_usage_error("--map-by", "core", "--gpus-per-rank", "1", mentions="--map-by core")
        env = dict(self.env, CUDA_VISIBLE_DEVICES="0")
        r = self.run_gpurun("--gpus-per-rank", "1", "-np", "2", "true",
                            env=dict(env, GPURUN_TOPO_FILE=fixture("pcie-2socket.xml")))
        self.assertEqual(r.returncode, 2)
        self.assertIn("needs 2 GPUs; this host has 1 GPU visible (CUDA_VISIBLE_DEVICES hides 3)",
                      r.stderr)


if __name__ == "__main__":
    unittest.main()
