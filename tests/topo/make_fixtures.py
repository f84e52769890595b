#!/usr/bin/env python3
"""Writes the fixture topologies of tests/topo/fixtures: hwloc XML files of machines this
project has no access to, for tests of the topology model, path choice and placement.

Each file starts as an hwloc synthetic export of the CPUs and memory (`lstopo-no-graphics -i
"<description>" --of xml`), to which this script adds the PCI tree under each package: host
bridges, root ports, PCIe switches (an upstream port bridge with downstream port bridges),
GPUs (PCI class 0302, vendor 10de, as Debian's hwloc shows them: PCI devices without CUDA or
NVML OS devices) and NICs (PCI devices with OpenFabrics and network OS devices). What hwloc
cannot hold, the NVLink and peer-to-peer data that NVML reports, goes in gpurun's info
attributes on each GPU (runtime/topo/README.md):

  gpurun.nvlink  "switch=18" (18 links to NVSwitches) or "0000:19:00.0=4,..." (direct links)
  gpurun.p2p     "0000:2a:00.0=ok,0000:9a:00.0=topology,..." (NVML's P2P read status)
  gpurun.uuid    "GPU-..."

usage: tests/topo/make_fixtures.py [OUTPUT_DIR]   (default: tests/topo/fixtures)
Run it again after changing it and commit the XML it writes; the tests read the XML only.
"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))


class Builder:
    """Adds I/O objects to a synthetic export, with unique gp_index values."""

    def __init__(self, synthetic):
        with tempfile.NamedTemporaryFile(suffix=".xml") as tmp:
            subprocess.run(["lstopo-no-graphics", "-i", synthetic, "--of", "xml", "-f",
                            tmp.name], check=True)
            self.tree = ET.parse(tmp.name)
        self.root = self.tree.getroot()
        machine = self.root.find("object")
        for info in machine.findall("info"):  # drop what names the machine that ran this
            if info.get("name") in ("ProcessName", "hwlocVersion"):
                machine.remove(info)
        self.next_gp = 1 + max(int(o.get("gp_index")) for o in self.root.iter("object"))
        self.packages = [o for o in self.root.iter("object") if o.get("type") == "Package"]

    def obj(self, parent, attrs, infos=()):
        node = ET.SubElement(parent, "object", {"type": attrs.pop("type"),
                                                "gp_index": str(self.next_gp), **attrs})
        self.next_gp += 1
        for name, value in infos:
            ET.SubElement(node, "info", {"name": name, "value": value})
        return node

    def host_bridge(self, package, first_bus, last_bus, domain=0):
        return self.obj(self.packages[package],
                        {"type": "Bridge", "bridge_type": "0-1", "depth": "0",
                         "bridge_pci": f"{domain:04x}:[{first_bus:02x}-{last_bus:02x}]"})

    def bridge(self, parent, busid, first_bus, last_bus, depth, ids="[1000:c030] [1000:a064]"):
        """A PCI-to-PCI bridge (a root port, or a port of a PCIe switch)."""
        return self.obj(parent, {"type": "Bridge", "bridge_type": "1-1", "depth": str(depth),
                                 "bridge_pci": f"0000:[{first_bus:02x}-{last_bus:02x}]",
                                 "pci_busid": busid, "pci_type": f"0604 {ids} 01",
                                 "pci_link_speed": "32.000000"})

    def switch(self, parent, up_bus, downstream, depth):
        """A PCIe switch below the bridge `parent`: its upstream port on bus `up_bus`, one
        downstream port per (secondary bus, subordinate bus) in `downstream`. Returns the
        downstream port bridges."""
        last = max(sub for _, sub in downstream)
        up = self.bridge(parent, f"0000:{up_bus:02x}:00.0", up_bus + 1, last, depth)
        return [self.bridge(up, f"0000:{up_bus + 1:02x}:{i:02x}.0", sec, sub, depth + 1)
                for i, (sec, sub) in enumerate(downstream)]

    def pcidev(self, parent, busid, pci_type, infos=()):
        return self.obj(parent, {"type": "PCIDev", "pci_busid": busid, "pci_type": pci_type,
                                 "pci_link_speed": "32.000000"}, infos)

    def osdev(self, parent, name, osdev_type, subtype=None, infos=()):
        attrs = {"type": "OSDev", "name": name, "osdev_type": str(osdev_type)}
        if subtype:
            attrs["subtype"] = subtype
        return self.obj(parent, attrs, infos)

    def gpu(self, parent, busid, model, ids, infos=()):
        return self.pcidev(parent, busid, f"0302 {ids} a1",
                           [("PCIVendor", "NVIDIA Corporation"), ("PCIDevice", model), *infos])

    def mellanox_nic(self, parent, busid, index):
        nic = self.pcidev(parent, busid, "0207 [15b3:1021] [15b3:0041] 00",
                          [("PCIVendor", "Mellanox Technologies"),
                           ("PCIDevice", "MT2910 Family [ConnectX-7]")])
        self.osdev(nic, f"ib{index}", 2, infos=[("Address", f"00:00:10:49:fe:80:00:{index:02x}")])
        self.osdev(nic, f"mlx5_{index}", 3, "OpenFabrics",
                   [("NodeGUID", f"a088:c203:00{index:02x}:0001"), ("Port1State", "4"),
                    ("Port1LinkLayer", "InfiniBand")])
        return nic

    def ethernet_nic(self, parent, busid, name, ids="[8086:1572] [8086:0000]"):
        nic = self.pcidev(parent, busid, f"0200 {ids} 02")
        self.osdev(nic, name, 2, infos=[("Address", "02:fc:00:00:00:01")])
        return nic

    def write(self, path):
        ET.indent(self.tree, "  ")
        text = ET.tostring(self.root, encoding="unicode")
        with open(path, "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            f.write('<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
            f.write(text + "\n")


def p2p_value(me, peers, status_of):
    return ",".join(f"{p}={status_of(me, p)}" for p in peers if p != me)


def dgx_h100(b):
    """2 sockets, 8 H100 SXM on NVSwitches (18 links each), each GPU under its own PCIe switch
    with one ConnectX-7 (mlx5_N), one switch per host bridge; 4 NVSwitch chips on PCI."""
    gpu_buses = [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb]
    gpus = [f"0000:{bus:02x}:00.0" for bus in gpu_buses]
    for i, bus in enumerate(gpu_buses):
        hb = b.host_bridge(i // 4, bus - 3, bus + 1)
        root = b.bridge(hb, f"0000:{bus - 3:02x}:01.0", bus - 2, bus + 1, 1,
                        "[8086:352a] [8086:0000]")
        gpu_port, nic_port = b.switch(root, bus - 2, [(bus, bus), (bus + 1, bus + 1)], 2)
        b.gpu(gpu_port, gpus[i], "GH100 [H100 SXM5 80GB]", "[10de:2330] [10de:16c1]",
              [("gpurun.nvlink", "switch=18"),
               ("gpurun.p2p", p2p_value(gpus[i], gpus, lambda a, c: "ok")),
               ("gpurun.uuid", f"GPU-0d6a5f21-7c1e-4b7a-9e35-4f1c2a0b00{i:02x}")])
        b.mellanox_nic(nic_port, f"0000:{bus + 1:02x}:00.0", i)
    hb = b.host_bridge(0, 0x04, 0x08)
    for k in range(4):  # NVSwitch chips: NVIDIA PCI devices that are not GPUs (class 0680)
        port = b.bridge(hb, f"0000:04:{k + 1:02x}.0", 5 + k, 5 + k, 1, "[8086:352b] [8086:0000]")
        b.pcidev(port, f"0000:{5 + k:02x}:00.0", "0680 [10de:22a3] [10de:1796] a1")


def pcie_2socket(b):
    """2 sockets, 4 A100 PCIe, no NVLink. Socket 0: a top-level switch with GPU0 and GPU1
    each under a switch of its own, and mlx5_0 on the top switch; eno1 on a root port.
    Socket 1: GPU2 and GPU3 each under a switch on its own root port, mlx5_1 beside GPU3.
    Peer access across the sockets is refused by the chipset (NVML: IOH topology)."""
    gpus = ["0000:05:00.0", "0000:08:00.0", "0000:83:00.0", "0000:86:00.0"]
    model, ids = "GA100 [A100 PCIe 80GB]", "[10de:20b5] [10de:1533]"

    def status(a, c):
        return "ok" if (gpus.index(a) < 2) == (gpus.index(c) < 2) else "topology"

    def infos(i):
        return [("gpurun.p2p", p2p_value(gpus[i], gpus, status)),
                ("gpurun.uuid", f"GPU-5e1c07aa-2b3d-4c8e-a1f0-7d2e9b3c40{i:02x}")]

    hb0 = b.host_bridge(0, 0x00, 0x0a)
    root = b.bridge(hb0, "0000:00:01.0", 0x01, 0x09, 1, "[8086:2030] [8086:0000]")
    top_a, top_b, top_nic = b.switch(root, 0x01, [(0x03, 0x05), (0x06, 0x08), (0x09, 0x09)], 2)
    (port,) = b.switch(top_a, 0x03, [(0x05, 0x05)], 4)
    b.gpu(port, gpus[0], model, ids, infos(0))
    (port,) = b.switch(top_b, 0x06, [(0x08, 0x08)], 4)
    b.gpu(port, gpus[1], model, ids, infos(1))
    b.mellanox_nic(top_nic, "0000:09:00.0", 0)
    eth_port = b.bridge(hb0, "0000:00:1c.0", 0x0a, 0x0a, 1, "[8086:a190] [8086:0000]")
    b.ethernet_nic(eth_port, "0000:0a:00.0", "eno1")
    hb1 = b.host_bridge(1, 0x80, 0x87)
    root = b.bridge(hb1, "0000:80:01.0", 0x81, 0x83, 1, "[8086:2030] [8086:0000]")
    (port,) = b.switch(root, 0x81, [(0x83, 0x83)], 2)
    b.gpu(port, gpus[2], model, ids, infos(2))
    root = b.bridge(hb1, "0000:80:02.0", 0x84, 0x87, 1, "[8086:2031] [8086:0000]")
    gpu_port, nic_port = b.switch(root, 0x84, [(0x86, 0x86), (0x87, 0x87)], 2)
    b.gpu(gpu_port, gpus[3], model, ids, infos(3))
    b.mellanox_nic(nic_port, "0000:87:00.0", 1)


def gpu_nic_switch(b):
    """1 socket, one L40S and one ConnectX-7 under one PCIe switch, and a virtio eth0 on the
    root bus. This GPU carries the cuda0/nvml0 OS devices that hwloc's CUDA and NVML plugins
    add (Debian's hwloc has neither): they must change nothing. No NVML data."""
    hb = b.host_bridge(0, 0x00, 0x04)
    root = b.bridge(hb, "0000:00:01.0", 0x01, 0x04, 1, "[1022:14ab] [0000:0000]")
    gpu_port, nic_port = b.switch(root, 0x01, [(0x03, 0x03), (0x04, 0x04)], 2)
    gpu = b.gpu(gpu_port, "0000:03:00.0", "AD102GL [L40S]", "[10de:26b9] [10de:1851]")
    b.osdev(gpu, "cuda0", 5, "CUDA", [("CoProcType", "CUDA"), ("GPUModel", "NVIDIA L40S")])
    b.osdev(gpu, "nvml0", 1, "NVML", [("GPUModel", "NVIDIA L40S")])
    b.mellanox_nic(nic_port, "0000:04:00.0", 0)
    b.ethernet_nic(hb, "0000:00:03.0", "eth0", "[1af4:1041] [1af4:1041]")


def no_gpu(b):
    """1 socket, no GPU: a virtio eth0 on the root bus, as on this project's CI machines."""
    hb = b.host_bridge(0, 0x00, 0x00)
    b.ethernet_nic(hb, "0000:00:03.0", "eth0", "[1af4:1041] [1af4:1041]")


FIXTURES = {
    "dgx-h100.xml": ("pack:2 numa:1 l3:1 core:56 pu:2", dgx_h100),
    "pcie-2socket.xml": ("pack:2 numa:1 l3:1 core:16 pu:2", pcie_2socket),
    "gpu-nic-switch.xml": ("pack:1 numa:1 l3:1 core:8 pu:2", gpu_nic_switch),
    "no-gpu.xml": ("pack:1 numa:1 l3:1 core:4 pu:2", no_gpu),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "fixtures")
    os.makedirs(out, exist_ok=True)
    for name, (synthetic, add_io) in FIXTURES.items():
        builder = Builder(synthetic)
        add_io(builder)
        path = os.path.join(out, name)
        builder.write(path)
        # hwloc must read it back without a complaint.
        check = subprocess.run(["lstopo-no-graphics", "-i", path, "--whole-io", "--of",
                                "console"], capture_output=True, text=True)
        if check.returncode != 0 or check.stderr:
            sys.exit(f"{path}: hwloc rejects it: {check.stderr}")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
