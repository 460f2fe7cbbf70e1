#!/usr/bin/env python3
"""Mutation run against the command-line tools: checks the tools' contract on broken input.

Takes seeds (the shared real traces and small traces made by the tools themselves), mutates
them (bit flips, truncation, insertions, and structure-aware JSON and .et mutations: deleted
keys, changed types, huge numbers, duplicate ids, deep nesting, repeated dependencies), runs
every tool on each mutant and checks the contract of doc/reliability.md:

  * the tool either writes its whole output and exits 0, or writes nothing (no output, no
    temporary file) and exits non-zero with one line "<tool>: error: <message>" that names the
    input file (and the node or byte offset when the input is the cause);
  * no crash (signal), no sanitizer report, no hang (--timeout).

Usage: scripts/mutate-tools.py --bin build-sanitize/bin [--count 1700] [--seed 1]
                               [--data ../shared/data] [--work /tmp/chakra-mutate]
Prints one line per failure and a summary; exit status 1 if any case broke the contract.
Failing inputs are kept under WORK/failures/ with the command that failed.
"""

import argparse
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import time

SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                     "ERROR: UndefinedBehaviorSanitizer", "AddressSanitizer:DEADLYSIGNAL")


# ----- seeds -----------------------------------------------------------------------------------

def read_maybe_gzip(path):
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def run(cmd, timeout):
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    start = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env)
        return p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace"), time.time() - start
    except subprocess.TimeoutExpired:
        return None, "", "", timeout


class Seeds:
    """Seed inputs by kind: et, host, kineto, linked, etjson."""

    def __init__(self, data, bindir, work):
        self.kinds = {"et": [], "host": [], "kineto": [], "linked": [], "etjson": [], "pairs": []}
        seed_dir = os.path.join(work, "seeds")
        os.makedirs(seed_dir, exist_ok=True)
        et_dir = os.path.join(data, "et")
        for root, _, files in os.walk(et_dir):
            for name in sorted(files):
                if name.endswith((".et", ".et.gz")):
                    path = os.path.join(root, name)
                    # One rank of each microbenchmark set is enough.
                    if "astra-microbenchmarks" in path and not name.split(".")[-2] == "0":
                        continue
                    self.kinds["et"].append(read_maybe_gzip(path))
        pairs = [("host-device/hta-simple-add/benchmark_simple_add_et.json.gz",
                  "host-device/hta-simple-add/benchmark_simple_add_trace.json.gz"),
                 ("host-device/torch113-gloo/pytorch_et_0.json.gz",
                  "host-device/torch113-gloo/kineto_trace_0.json.gz"),
                 ("host-device/param-dlrm-8rank/dlrm_eg_0.json.gz",
                  "host-device/param-dlrm-8rank/worker0_step_12.1694128201545.pt.trace.json.gz")]
        for i, (host, kineto) in enumerate(pairs):
            h = read_maybe_gzip(os.path.join(data, host))
            k = read_maybe_gzip(os.path.join(data, kineto))
            self.kinds["host"].append(h)
            self.kinds["kineto"].append(k)
            self.kinds["pairs"].append((h, k))
            out = os.path.join(seed_dir, "linked%d.json" % i)
            code, _, err, _ = run([os.path.join(bindir, "chakra_trace_link"),
                                   "--chakra-host-trace", os.path.join(data, host),
                                   "--chakra-device-trace", os.path.join(data, kineto),
                                   "--rank", "0", "--output-file", out], 600)
            if code == 0:
                self.kinds["linked"].append(read_maybe_gzip(out))
        self.kinds["host"].append(read_maybe_gzip(
            os.path.join(data, "host-only/chakra-tests/1.0.2-chakra.0.0.4.json.gz")))
        for i, et in enumerate(self.kinds["et"][:6]):
            src = os.path.join(seed_dir, "s%d.et" % i)
            with open(src, "wb") as f:
                f.write(et)
            out = os.path.join(seed_dir, "s%d.json" % i)
            if run([os.path.join(bindir, "chakra_jsonizer"), "--quiet", "--input", src,
                    "--output", out], 300)[0] == 0:
                with open(out, "rb") as f:
                    self.kinds["etjson"].append(f.read())


# ----- mutations -------------------------------------------------------------------------------

def mutate_bytes(data, rng):
    data = bytearray(data)
    if not data:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
    op = rng.randrange(6)
    if op == 0:  # bit flips
        for _ in range(rng.randrange(1, 9)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif op == 1:  # truncation
        del data[rng.randrange(len(data)):]
    elif op == 2:  # insertion of random bytes
        i = rng.randrange(len(data) + 1)
        data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    elif op == 3:  # a chunk duplicated
        i = rng.randrange(len(data))
        j = min(len(data), i + rng.randrange(1, 4096))
        k = rng.randrange(len(data) + 1)
        data[k:k] = data[i:j]
    elif op == 4:  # a range zeroed or set to 0xff
        i = rng.randrange(len(data))
        j = min(len(data), i + rng.randrange(1, 64))
        data[i:j] = bytes([rng.choice([0, 0xff])]) * (j - i)
    else:  # interesting bytes at a random place
        i = rng.randrange(len(data))
        data[i:i + 1] = rng.choice([b"\x80" * 10, b"\xff\xff\xff\xff\x0f", b"{", b"[", b"\"",
                                    b"\\", b"\x00", b"1e999", b"-"])
    return bytes(data)


HUGE = [2 ** 63, 2 ** 64, 2 ** 64 - 1, -2 ** 63 - 1, -1, 10 ** 30, 1e308, -1e308, 0,
        2 ** 53 + 1, 4294967296, 2147483648]


def deep_value(rng):
    depth = rng.choice([129, 1000, 100000])
    opener = rng.choice(["[", "{\"a\":"])
    closer = "]" if opener == "[" else "}"
    return ("__DEEP__", opener * depth + "0" + closer * depth)


def all_paths(node, path=()):
    """Every (container, key) in a JSON document, breadth-limited for big traces."""
    stack = [(node, path)]
    out = []
    while stack and len(out) < 20000:
        current, p = stack.pop()
        if isinstance(current, dict):
            for k, v in current.items():
                out.append((current, k))
                stack.append((v, p + (k,)))
        elif isinstance(current, list):
            for i, v in enumerate(current[:50]):
                out.append((current, i))
                stack.append((v, p + (i,)))
    return out


def mutate_json(data, rng):
    try:
        doc = json.loads(data)
    except ValueError:
        return mutate_bytes(data, rng)
    places = all_paths(doc)
    if not places:
        return mutate_bytes(data, rng)
    deep = None
    for _ in range(rng.randrange(1, 4)):
        container, key = rng.choice(places)
        op = rng.randrange(7)
        try:
            if op == 0:  # deleted key / element
                del container[key]
            elif op == 1:  # changed type
                container[key] = rng.choice([None, True, "x", 7, -3.5, [], {}, [1, "a"],
                                             {"id": 1}, ""])
            elif op == 2:  # huge number
                container[key] = rng.choice(HUGE)
            elif op == 3:  # duplicate (ids, nodes, events)
                if isinstance(container, list):
                    container.insert(rng.randrange(len(container) + 1), container[key])
                else:
                    container[key] = [container[key], container[key]]
            elif op == 4:  # deep nesting
                deep = deep_value(rng)
                container[key] = deep[0]
            elif op == 5:  # empty containers
                container[key] = rng.choice([[], {}, ""])
            else:  # string that is JSON or almost
                container[key] = rng.choice(["[", "{\"pg_name\": 1}", "[[[[", "1e999", "\u0000",
                                             "GenericList[Tensor(float)]"])
        except (KeyError, IndexError, TypeError):
            pass
        places = all_paths(doc)
        if not places:
            break
    text = json.dumps(doc)
    if deep is not None:
        text = text.replace('"__DEEP__"', deep[1], 1)
    return text.encode()


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def split_messages(data):
    messages, i = [], 0
    while i < len(data):
        length, shift = 0, 0
        while True:
            if i >= len(data) or shift > 63:
                return None
            b = data[i]
            i += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        messages.append(data[i:i + length])
        i += length
    return messages


def mutate_et(data, rng):
    messages = split_messages(data)
    if not messages or len(messages) < 2 or rng.random() < 0.4:
        return mutate_bytes(data, rng)
    op = rng.randrange(6)
    k = rng.randrange(1, len(messages))
    if op == 0:  # a node twice (duplicate id)
        messages.insert(rng.randrange(1, len(messages) + 1), messages[k])
    elif op == 1:  # nodes out of order
        j = rng.randrange(1, len(messages))
        messages[k], messages[j] = messages[j], messages[k]
    elif op == 2:  # a node dropped (dangling dependencies)
        del messages[k]
    elif op == 3:  # repeated data deps appended (field 5, packed)
        ids = b"".join(varint(rng.randrange(1, 5000)) for _ in range(rng.randrange(1, 8)))
        packed = ids * rng.randrange(1, 20000)
        messages[k] = messages[k] + varint(5 << 3 | 2) + varint(len(packed)) + packed
    elif op == 4:  # a huge value in an integer field (id, start, duration) or a self dep
        field = rng.choice([1, 6, 7, 5, 4])
        value = rng.choice([2 ** 64 - 1, 2 ** 63, 2 ** 40, 0])
        messages[k] = messages[k] + varint(field << 3) + varint(value)
    else:  # an attribute with a huge integer (comm_size, comm_type, comm_src ...)
        name = rng.choice([b"comm_size", b"comm_type", b"comm_src", b"comm_dst", b"comm_tag",
                           b"is_cpu_op", b"pg_name", b"num_ops", b"tensor_size"])
        value = rng.choice([2 ** 64 - 1, 2 ** 63 - 1, 2 ** 62, 10 ** 15, 2 ** 31])
        field = rng.choice([9, 13, 7, 29])
        val = varint(field << 3) + varint(value) if field != 29 else \
            varint(field << 3 | 2) + varint(3) + b"abc"
        attr = varint(1 << 3 | 2) + varint(len(name)) + name + val
        messages[k] = messages[k] + varint(10 << 3 | 2) + varint(len(attr)) + attr
    return b"".join(varint(len(m)) + m for m in messages)


# ----- the contract ----------------------------------------------------------------------------

def check(name, code, out, err, outputs, inputs, workdir, expect_stdout=False):
    """Returns None if the run kept the contract, else the reason."""
    if code is None:
        return "hang (timeout)"
    for marker in SANITIZER_MARKERS:
        if marker in err:
            return "sanitizer report: " + next(l for l in err.splitlines() if marker in l)
    if code < 0:
        return "killed by signal %d" % -code
    leftovers = [f for f in os.listdir(workdir) if ".tmp-" in f]
    if leftovers:
        return "temporary file left: " + leftovers[0]
    if code == 0:
        missing = [o for o in outputs if not os.path.isfile(o) or os.path.getsize(o) == 0]
        if missing:
            return "exit 0 but no output " + missing[0]
        if expect_stdout and not out.strip():
            return "exit 0 but nothing printed"
        return None
    present = [o for o in outputs if os.path.exists(o)]
    if present:
        return "exit %d but output %s written" % (code, present[0])
    lines = [l for l in err.splitlines() if l.strip()]
    errors = [l for l in lines if l.startswith(name + ": error: ")]
    if len(errors) != 1:
        return "exit %d without exactly one '%s: error:' line: %r" % (code, name, err[-300:])
    if not any(os.path.basename(i) in errors[0] for i in inputs):
        return "error names no input file: " + errors[0]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, help="directory of the built tools")
    parser.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                       "shared", "data"))
    parser.add_argument("--count", type=int, default=1700)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--work", default="/tmp/chakra-mutate")
    parser.add_argument("--only", default="", help="comma-separated scenarios")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    failures_dir = os.path.join(args.work, "failures")
    os.makedirs(failures_dir)
    seeds = Seeds(args.data, args.bin, args.work)
    tool = lambda name: os.path.join(args.bin, name)

    def scenario_et_info(d):
        src = os.path.join(d, "in.et")
        with open(src, "wb") as f:
            f.write(mutate_et(rng.choice(seeds.kinds["et"]), rng))
        return "chakra_et_info", [tool("chakra_et_info"), src], [], [src], True

    def scenario_jsonizer(d):
        src, dst = os.path.join(d, "in.et"), os.path.join(d, "out.json")
        with open(src, "wb") as f:
            f.write(mutate_et(rng.choice(seeds.kinds["et"]), rng))
        return "chakra_jsonizer", [tool("chakra_jsonizer"), "--input", src, "--output", dst], \
            [dst], [src], False

    def scenario_jsonizer_reverse(d):
        src, dst = os.path.join(d, "in.json"), os.path.join(d, "out.et")
        seed = rng.choice(seeds.kinds["etjson"])
        data = mutate_json(seed, rng) if rng.random() < 0.7 else mutate_bytes(seed, rng)
        with open(src, "wb") as f:
            f.write(data)
        return "chakra_jsonizer", [tool("chakra_jsonizer"), "--reverse", "--input", src,
                                   "--output", dst], [dst], [src], False

    def scenario_trace_link(d):
        host, kineto = rng.choice(seeds.kinds["pairs"])
        hp, kp, out = os.path.join(d, "host.json"), os.path.join(d, "kineto.json"), \
            os.path.join(d, "linked.json")
        mutate = mutate_json if rng.random() < 0.7 else mutate_bytes
        if rng.random() < 0.5:
            host = mutate(host, rng)
        else:
            kineto = mutate(kineto, rng)
        with open(hp, "wb") as f:
            f.write(host)
        with open(kp, "wb") as f:
            f.write(kineto)
        return "chakra_trace_link", [tool("chakra_trace_link"), "--chakra-host-trace", hp,
                                     "--chakra-device-trace", kp, "--rank", "0",
                                     "--output-file", out], [out], [hp, kp], False

    def scenario_converter(d):
        src, dst = os.path.join(d, "trace.json"), os.path.join(d, "out.et")
        seed = rng.choice(seeds.kinds["host"] + seeds.kinds["linked"])
        mutate = mutate_json if rng.random() < 0.7 else mutate_bytes
        with open(src, "wb") as f:
            f.write(mutate(seed, rng))
        return "chakra_converter", [tool("chakra_converter"), "PyTorch", "--input", src,
                                    "--output", dst, "--quiet"], [dst], [src], False

    scenarios = {"et_info": scenario_et_info, "jsonizer": scenario_jsonizer,
                 "jsonizer_reverse": scenario_jsonizer_reverse,
                 "trace_link": scenario_trace_link, "converter": scenario_converter}
    if args.only:
        scenarios = {k: v for k, v in scenarios.items() if k in args.only.split(",")}
    names = sorted(scenarios)
    counts = {n: 0 for n in names}
    failures = []
    start = time.time()
    for i in range(args.count):
        name = names[i % len(names)]
        d = os.path.join(args.work, "case")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        program, cmd, outputs, inputs, stdout = scenarios[name](d)
        code, out, err, _ = run(cmd, args.timeout)
        counts[name] += 1
        reason = check(program, code, out, err, outputs, inputs, d, stdout)
        if reason:
            keep = os.path.join(failures_dir, "%04d-%s" % (i, name))
            shutil.copytree(d, keep)
            with open(os.path.join(keep, "command.txt"), "w") as f:
                f.write(" ".join(cmd) + "\n\nexit %s\n\nstderr:\n%s" % (code, err[-20000:]))
            failures.append((i, name, reason))
            print("FAIL %04d %s: %s" % (i, name, reason[:300]), flush=True)
    print("%d cases in %.0f s: %s; %d broke the contract (kept in %s)" % (
        args.count, time.time() - start,
        ", ".join("%s %d" % (n, counts[n]) for n in names), len(failures), failures_dir))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
