#!/usr/bin/env python3
"""CTest (label example): runs one program of examples/ as its comment block says and checks
what it printed against a figure of its own: a closed form of doc/collectives.md computed here
from the link parameters (never from the program's output), an ordering, or a second run.

    test/examples-test.py BIN_DIR CASE

CASE is the example's name without "chakra-" (replay-trace, sweep-one-knob, rdma-incast,
rdma-incast-pfc-only, flow-at-scale, two-node-custom, timeline, noisy-neighbours) or
topology-FAMILY."""
import json
import os
import re
import subprocess
import sys
import tempfile

BIN, CASE = sys.argv[1], sys.argv[2]
FAILURES = []
SCRATCH = tempfile.TemporaryDirectory()  # files the examples write; removed at exit

# Per-packet overheads (doc/collectives.md, "Link parameters in the closed forms").
RDMA_PAYLOAD, RDMA_WIRE = -44, 38  # IPv4 + UDP + BTH + ICRC; Ethernet header, FCS, preamble, gap
TCP_PAYLOAD, TCP_WIRE = -52, 2     # IPv4 + TCP + timestamps; PPP


def run(program, *args):
    """Runs an example; its output (printed, for the CTest log), or a failure if it exits non-zero."""
    result = subprocess.run([os.path.join(BIN, program), *args], capture_output=True, text=True,
                            timeout=120)
    print("$", program, *args)
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    if result.returncode != 0:
        sys.exit(f"FAIL: {program} exited {result.returncode}")
    return result.stdout


def number(pattern, text):
    """The first number captured by pattern in text (a failure if it is not there)."""
    match = re.search(pattern, text, re.M)
    if not match:
        sys.exit(f"FAIL: no line matching {pattern!r}")
    return float(match.group(1))


def check(condition, claim):
    print(("ok: " if condition else "FAIL: ") + claim)
    if not condition:
        FAILURES.append(claim)


def near(value, expected, tolerance):
    return abs(value - expected) <= tolerance * expected


def payload_rate(gbps, mtu, payload, wire):
    """Bytes per microsecond of payload on a link."""
    return gbps * 1e3 / 8 * (mtu + payload) / (mtu + wire)


def step_latency(hops_us, gbps, mtu, wire):
    """a: the path's propagation delays plus one packet's store-and-forward at the switch (us)."""
    return hops_us + (mtu + wire) * 8 / (gbps * 1e3)


def hierarchical_all_reduce(size, hosts, gpus):
    """All-reduce, hierarchical, hosts x gpus on the default cluster (NVLink 3600 Gbps / 250 ns,
    NIC 400 Gbps / 500 ns, one switch, rdma): 2(g-1)(a_in + S/(g B_in)) + 2(H-1)(a_out + S/(gH B_out))."""
    a_in = step_latency(0.5, 3600, 65000, RDMA_WIRE)
    b_in = payload_rate(3600, 65000, RDMA_PAYLOAD, RDMA_WIRE)
    a_out = step_latency(1.0, 400, 9000, RDMA_WIRE)
    b_out = payload_rate(400, 9000, RDMA_PAYLOAD, RDMA_WIRE)
    inner = 2 * (gpus - 1) * (a_in + size / (gpus * b_in)) if gpus > 1 else 0
    return inner + 2 * (hosts - 1) * (a_out + size / (gpus * hosts * b_out))


def replay_trace():
    out = run("chakra-replay-trace")
    check("finished 8/8" in out, "every rank ran its whole trace")
    forward = number(r"^forward (\S+) us", out)
    all_reduce = number(r"all-reduce (\S+) us", out)
    optimizer = number(r"optimizer (\S+) us", out)
    iteration = number(r"^iteration time: (\S+) us", out)
    check(abs(iteration - (forward + all_reduce + optimizer)) < 0.002,
          f"nothing overlaps: iteration {iteration} = {forward} + {all_reduce} + {optimizer} us")
    form = hierarchical_all_reduce(4 << 20, 2, 4)
    check(near(all_reduce, form, 0.05),
          f"the 2 x 4 hierarchical all-reduce of 4 MiB, {all_reduce} us, within 5% of its closed "
          f"form {form:.3f} us")


def sweep_one_knob():
    out = run("chakra-sweep-one-knob")
    rows = re.findall(r"^(\d+)Gbps\s+(\S+)\s+(\S+)$", out, re.M)
    check(len(rows) == 5, "a row per bandwidth (25, 50, 100, 200, 400 Gbps)")
    times = [float(t) for _, t, _ in rows]
    check(all(x > y for x, y in zip(times, times[1:])), f"times fall as bandwidth rises: {times}")
    n, size = 4, 4 << 20
    for gbps, time, _ in rows:
        gbps = float(gbps)
        a = step_latency(1.0, gbps, 9000, RDMA_WIRE)
        form = 2 * (n - 1) * a + 2 * (n - 1) / n * size / payload_rate(gbps, 9000, RDMA_PAYLOAD,
                                                                        RDMA_WIRE)
        check(near(float(time), form, 0.05),
              f"{gbps:g} Gbps: {time} us within 5% of the 4-rank ring closed form {form:.3f} us")


def topology(family):
    dot = os.path.join(SCRATCH.name, "topology.dot")
    out = run("chakra-topology", f"--topology={family}", f"--dot={dot}")
    check(re.search(rf"^topology: {re.escape(family)}\b.*: 16 GPUs", out, re.M) is not None,
          f"the topology line names {family} and 16 GPUs")
    check(re.search(r"^graph \w+ \{", open(dot).read(), re.M) is not None,
          "the Graphviz picture is written")
    time = number(r"on 16 GPUs \(\S+\): (\S+) us", out)
    size = 4 << 20
    if family == "torus":
        # A ring over one link per GPU: no faster than its bandwidth term alone.
        bound = 2 * 15 / 16 * size / payload_rate(400, 9000, RDMA_PAYLOAD, RDMA_WIRE)
    else:
        # The 4 hosts' (or rings') NICs carry 2(H-1)/H of the buffer, a quarter per GPU's NIC.
        bound = 2 * 3 / 4 * size / (4 * payload_rate(400, 9000, RDMA_PAYLOAD, RDMA_WIRE))
    check(time >= bound, f"{time} us is no less than the NICs' bandwidth bound {bound:.3f} us")
    form = hierarchical_all_reduce(size, 4, 4)
    if family in ("single-switch", "rail-only"):
        # rail-only: GPU i of every host on rail switch i: the cross-host ring is one switch away.
        check(near(time, form, 0.05),
              f"{time} us within 5% of the one-switch closed form {form:.3f} us")
    else:
        check(time <= 4 * form, f"{time} us within 4 x the one-switch closed form {form:.3f} us")


def rdma_incast(pfc_only):
    args = ["--congestionControl=none"] if pfc_only else []
    out = run("chakra-rdma-incast", *args)
    senders, size = 7, 1 << 20
    bound = senders * size / payload_rate(100, 9000, RDMA_PAYLOAD, RDMA_WIRE)
    time = number(r"^gather time: (\S+) us", out)
    printed = number(r"bound: (\S+) us", out)
    check(near(printed, bound, 0.001), f"the printed bound {printed} is (N-1) M / B = {bound:.3f} us")
    check(time >= bound * 0.999, f"the gather, {time} us, takes at least its bound")
    check(number(r"^pfc pauses sent: (\d+)", out) > 0, "the switch paused senders (PFC)")
    check(number(r"^ecn marks: (\d+)", out) > 0, "the switch marked ECN")
    cnps = number(r"^cnps received: (\d+)", out)
    if pfc_only:
        # Without congestion control no NIC sends CNPs: none would be read.
        check(cnps == 0, "no congestion control: no CNPs")
    else:
        check(cnps > 0, "the DCQCN senders received CNPs")
    check(number(r"^drops: (\d+)", out) == 0, "lossless: no drops")
    if pfc_only:
        check(near(time, bound, 0.02), f"line-rate senders: the gather within 2% of its bound")
    else:
        check(time > bound * 1.05, "DCQCN senders back off: the gather takes longer than the bound")


def flow_at_scale():
    flow = run("chakra-flow-at-scale")
    rdma = run("chakra-flow-at-scale", "--transport=rdma")
    check("transport model: flow" in flow and "transport model: rdma" in rdma,
          "the report names the model that ran")
    check(": 256 GPUs" in flow, "256 GPUs")
    pattern = r"on 256 GPUs \(\S+\): (\S+) us"
    flow_time, rdma_time = number(pattern, flow), number(pattern, rdma)
    check(near(flow_time, rdma_time, 0.03),
          f"the flow model's all-reduce, {flow_time} us, within 3% of rdma's {rdma_time} us")
    events = r"simulated with (\d+) events"
    check(number(events, flow) < number(events, rdma), "the flow model needs fewer events")


def two_node_custom():
    out = run("chakra-two-node-custom")
    check("finished 2/2" in out, "both ranks ran their whole trace")
    size, delay = 16 << 20, 1.0
    rate = payload_rate(100, 9000, TCP_PAYLOAD, TCP_WIRE)
    receive = number(r"^rank 1 RECV: (\S+) us", out)
    form = delay + size / rate
    check(near(receive, form, 0.01), f"the receive, {receive} us, within 1% of delay + S/B = {form:.3f} us")
    all_reduce = number(r"^rank 1 ALL_REDUCE: (\S+) us", out)
    form = 2 * delay + size / rate
    check(near(all_reduce, form, 0.02),
          f"rank 1's all-reduce, {all_reduce} us, within 2% of 2 delay + S/B = {form:.3f} us")


def noisy_neighbours():
    out = run("chakra-noisy-neighbours")
    rows = re.findall(r"^(\w+): job (\w+) on hosts (\S+): (\S+) us, alone (\S+) us, slowdown (\S+)$",
                      out, re.M)
    check(len(rows) == 4, f"two jobs under two placements (got {len(rows)} lines)")
    for placement, job, hosts, shared, alone, slowdown in rows:
        shared, alone = float(shared), float(alone)
        if placement == "contiguous":
            # A leaf each: no link carries both jobs, so nothing changes, to the nanosecond.
            check(shared == alone, f"contiguous {job} on {hosts}: {shared} us as alone")
        else:
            # Both jobs cross the spine through the same 4:1 uplinks.
            check(shared > alone * 1.05, f"spread {job} on {hosts}: {shared} us, slower than "
                  f"alone ({alone} us)")


def timeline():
    path = os.path.join(SCRATCH.name, "timeline.json")
    out = run("chakra-timeline", f"--timeline={path}")
    check(f"timeline: {path}" in out, "the program says where the timeline is")
    document = json.load(open(path))
    events = [e for e in document["traceEvents"] if e.get("ph") == "X"]
    ranks = {e["pid"] for e in events}
    check(ranks == {0, 1, 2, 3}, f"events of the 4 ranks: {sorted(ranks)}")
    names = {e["name"] for e in events if e["pid"] == 0}
    expected = {f"forward_{i}" for i in range(4)} | {f"backward_{i}" for i in range(4)} | {
        "optimizer_step", "allreduce_bucket_0", "allreduce_bucket_1"}
    check(expected <= names, f"rank 0's forward, backward, optimizer and 2 bucket all-reduces")
    compute = sum(e["dur"] for e in events if e["pid"] == 0 and e.get("cat") == "compute")
    # DataParallelSpec's defaults: 400 us forward and 800 us backward per layer, 300 optimizer.
    check(abs(compute - (4 * (400 + 800) + 300)) < 0.01, f"rank 0's compute events last 5100 us")
    end = max(e["ts"] + e["dur"] for e in events)
    iteration = number(r"^iteration time: (\S+) us", out)
    check(abs(end - iteration) < 0.01, f"the last event ends at the iteration time ({iteration} us)")


def mistakes():
    """A user's mistake is one line naming what is wrong and exit 1: no abort (exit 134 before:
    the cluster's SetAttribute ended in NS_FATAL_ERROR, an exception escaped main)."""
    for program, args, named in [
        ("chakra-topology", ["--topology=stra"], "unknown topology 'stra'"),
        ("chakra-flow-at-scale", ["--hosts=0"], "GpuClusterHelper::Hosts: '0' is not valid"),
        ("chakra-replay-trace", ["--hosts=0"], "GpuClusterHelper::Hosts: '0' is not valid"),
        ("chakra-sweep-one-knob", ["--bytes=-1"], "--bytes: '-1' is not a whole number"),
        ("chakra-rdma-incast", ["--senders=0"], "--senders and --bytes must be at least 1"),
    ]:
        result = subprocess.run([os.path.join(BIN, program), *args], capture_output=True,
                                text=True, timeout=60)
        lines = result.stderr.strip().splitlines()
        check(result.returncode == 1, f"{program} {' '.join(args)}: exit 1 (got {result.returncode})")
        check(len(lines) == 1 and named in lines[0],
              f"{program} {' '.join(args)}: one line naming it (got {result.stderr!r})")


def knob_range():
    """Issue 24 item 4: an unsigned knob given a negative value, a fraction or a value beyond its
    type is refused when the command line is parsed (ExampleCommandLine), in every example: one
    line naming the flag and exit 1. ns-3's CommandLine read -1 as 2^32-1 or 2^64-1 and ran."""
    for program, args, named in [
        ("chakra-replay-trace", ["--hosts=-1"],
         "--hosts: '-1' is not a whole number from 0 to 4294967295"),
        ("chakra-replay-trace", ["--bytes=-1"],
         "--bytes: '-1' is not a whole number from 0 to 18446744073709551615"),
        ("chakra-sweep-one-knob", ["--hosts=-4"], "--hosts: '-4' is not a whole number"),
        ("chakra-topology", ["--bytes=1.5"], "--bytes: '1.5' is not a whole number"),
        ("chakra-rdma-incast", ["--senders=-1"], "--senders: '-1' is not a whole number"),
        ("chakra-flow-at-scale", ["--hosts=-1"], "--hosts: '-1' is not a whole number"),
        ("chakra-two-node-custom", ["--bytes=-1"], "--bytes: '-1' is not a whole number"),
        ("chakra-timeline", ["--layers=4294967296"],
         "--layers: 4294967296 is not a whole number from 0 to 4294967295"),
    ]:
        try:  # a knob read as 2^32-1 hosts would run (or allocate) for ever
            result = subprocess.run([os.path.join(BIN, program), *args], capture_output=True,
                                    text=True, timeout=30)
        except subprocess.TimeoutExpired:
            check(False, f"{program} {' '.join(args)}: refused at once (it ran on)")
            continue
        lines = result.stderr.strip().splitlines()
        check(result.returncode == 1, f"{program} {' '.join(args)}: exit 1 (got {result.returncode})")
        check(len(lines) == 1 and named in lines[0] and not result.stdout,
              f"{program} {' '.join(args)}: one line naming the flag, nothing run "
              f"(got {result.stderr!r}, {result.stdout[:200]!r})")


CASES = {
    "mistakes": mistakes,
    "knob-range": knob_range,
    "replay-trace": replay_trace,
    "sweep-one-knob": sweep_one_knob,
    "rdma-incast": lambda: rdma_incast(False),
    "rdma-incast-pfc-only": lambda: rdma_incast(True),
    "flow-at-scale": flow_at_scale,
    "two-node-custom": two_node_custom,
    "timeline": timeline,
    "noisy-neighbours": noisy_neighbours,
}
if CASE.startswith("topology-"):
    topology(CASE[len("topology-"):])
else:
    CASES[CASE]()
if FAILURES:
    sys.exit(f"FAIL: {len(FAILURES)} check(s) failed")
print(f"{CASE}: every check passed")
