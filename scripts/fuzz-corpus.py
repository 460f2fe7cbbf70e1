#!/usr/bin/env python3
"""Writes the hand-made part of the fuzz regression corpus (test/fuzz/corpus/<target>/).

One small file per crash or contract-breaking class of issue 17 and of the mutation and fuzz
runs (doc/reliability.md): deep nesting (gzip'd: the readers take gzip'd input, so 100,000
levels cost a few hundred bytes), numbers too large for a double, repeated dependencies,
self-dependencies, duplicate or sparse ids, oversized length prefixes, structural mistakes of
the JSON form, broken process-group text. Crashers that libFuzzer finds are added next to these
by scripts/fuzz.sh (crash-<sha1>). Re-running this script rewrites the same bytes.

Usage: scripts/fuzz-corpus.py [corpus directory]   (default: test/fuzz/corpus)
"""

import gzip
import json
import os
import sys


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def ld(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def framed(message):
    return varint(len(message)) + message


METADATA = framed(ld(1, b"0.0.4"))


def node(nid, name=b"n", type_=4, data=(), ctrl=(), attrs=b"", extra=b""):
    body = key(1, 0) + varint(nid) + ld(2, name) + key(3, 0) + varint(type_)
    if ctrl:
        body += ld(4, b"".join(varint(d) for d in ctrl))
    if data:
        body += ld(5, b"".join(varint(d) for d in data))
    return body + attrs + extra


def attr_int(name, value, field=9):
    return ld(10, ld(1, name) + key(field, 0) + varint(value))


def et(*nodes):
    return METADATA + b"".join(framed(n) for n in nodes)


def deep(depth, opener="[", closer="]", inner="0"):
    return opener * depth + inner + closer * depth


def gz(text):
    data = text.encode() if isinstance(text, str) else text
    return gzip.compress(data, mtime=0)


HOST = {"schema": "1.0.1", "pid": 7, "nodes": [
    {"name": "[pytorch|profiler|execution_trace|process]", "id": 1, "parent": 1, "tid": 0},
    {"name": "[pytorch|profiler|execution_trace|thread]", "id": 2, "parent": 1, "tid": 1},
    {"name": "aten::add", "id": 3, "parent": 2, "tid": 1, "rf_id": 1},
    {"name": "nccl:all_reduce", "id": 4, "parent": 2, "tid": 1, "rf_id": 2,
     "inputs": [[7, 8, 0, 4, 4, "cuda:0"]], "input_types": ["Tensor(float)"]}]}

KINETO = {"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": 100, "dur": 20,
     "args": {"External id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 105,
     "dur": 5, "args": {"correlation": 9, "External id": 1}},
    {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 112, "dur": 4,
     "args": {"correlation": 9, "stream": 7, "device": 0}}]}

HOST_CHAKRA = {"schema": "1.0.2-chakra.0.0.4", "pid": 7, "nodes": [
    {"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1,
     "inputs": {"values": [], "shapes": [], "types": []},
     "outputs": {"values": [], "shapes": [], "types": []}, "attrs": []},
    {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1,
     "inputs": {"values": [], "shapes": [], "types": []},
     "outputs": {"values": [], "shapes": [], "types": []},
     "attrs": [{"name": "tid", "type": "uint64", "value": 1}]},
    {"id": 3, "name": "process_group:init", "ctrl_deps": 2,
     "inputs": {"values": ["[{\"pg_name\": \"0\", \"ranks\": [0, 1], \"group_size\": 2}]"],
                "shapes": [[]], "types": ["String"]},
     "outputs": {"values": [], "shapes": [], "types": []},
     "attrs": [{"name": "rf_id", "type": "uint64", "value": 3},
               {"name": "tid", "type": "uint64", "value": 1}]}]}


def corpus():
    files = {}
    # ----- et_stream --------------------------------------------------------------------------
    t = files.setdefault("et_stream", {})
    t["repeated-deps.et"] = et(node(11, data=[1, 2, 3] * 3000), node(12, data=[1, 2, 3] * 3000))
    t["repeated-deps.et.gz"] = gz(et(node(11, data=[1, 2, 3] * 200000)))
    t["self-dep-data.et"] = et(node(1), node(2, data=[2, 1]))
    t["self-dep-ctrl.et"] = et(node(1), node(2, data=[1], ctrl=[2]))
    t["duplicate-id.et"] = et(node(1), node(2, data=[1]), node(1))
    t["sparse-ids.et"] = et(node(2 ** 63), node(2 ** 64 - 1, data=[2 ** 63, 7]), node(7))
    t["dangling-and-cycle.et"] = et(node(5, data=[99]), node(6, data=[7]), node(7, data=[6]))
    t["length-prefix-over-16MiB.et"] = METADATA + varint((16 << 20) + 1) + b"\x08\x01"
    t["length-prefix-overflow.et"] = METADATA + b"\xff" * 10 + b"\x01"
    t["truncated.et"] = et(node(1), node(2, data=[1]))[:-3]
    t["deps-wire-type-fixed64.et"] = et(node(1, extra=key(5, 1) + b"\x01" * 8))
    t["deps-unpacked.et"] = et(node(1), node(2, extra=key(5, 0) + varint(1) + key(5, 0) + varint(1)))
    t["deps-varint-over-64-bits.et"] = et(node(1, extra=ld(5, b"\xff" * 10 + b"\x01")))
    t["deps-packed-length-past-end.et"] = et(node(1, extra=key(5, 2) + varint(1000) + b"\x01"))
    t["comm-size-sum-wraps.et"] = et(node(1, type_=7, attrs=attr_int(b"comm_size", 2 ** 64 - 6, 13)),
                                      node(2, type_=7, attrs=attr_int(b"comm_size", 2 ** 64 - 6, 13)))
    t["comm-type-mistyped.et"] = et(node(1, type_=7, attrs=ld(10, ld(1, b"comm_type") +
                                                             ld(4, ld(1, b"\x00" * 8)))))
    t["comm-type-huge.et"] = et(node(1, type_=7, attrs=attr_int(b"comm_type", 2 ** 63)))
    t["node-type-unknown.et"] = et(node(1, type_=2 ** 31 - 1))
    t["empty.et"] = b""
    t["metadata-only.et"] = METADATA
    t["second-metadata.et"] = METADATA + METADATA
    t["gzip-truncated.et"] = gz(et(node(1), node(2)))[:-6]
    t["group-unbalanced.et"] = et(node(1, extra=key(15, 3) + key(16, 0) + b"\x01"))
    # ----- host_trace -------------------------------------------------------------------------
    t = files.setdefault("host_trace", {})
    host = json.dumps(HOST)
    t["deep-field.json.gz"] = gz(host.replace('"rf_id": 1', '"deep": %s, "rf_id": 1' % deep(100000)))
    t["deep-objects.json.gz"] = gz(host.replace('"rf_id": 2', '"deep": %s, "rf_id": 2' %
                                                deep(100000, '{"a":', "}")))
    t["number-overflow.json"] = host.replace('"tid": 1, "rf_id": 1', '"tid": 1e9999, "rf_id": 1')
    t["id-huge.json"] = host.replace('"id": 3', '"id": 18446744073709551616')
    t["parent-missing.json"] = host.replace('"parent": 2, "tid": 1, "rf_id": 1',
                                            '"parent": 77, "tid": 1, "rf_id": 1')
    t["duplicate-id.json"] = host.replace('"id": 4', '"id": 3')
    t["nodes-not-a-list.json"] = json.dumps({"schema": "1.0.1", "nodes": {"a": 1}})
    t["not-an-object.json"] = "[1, 2, 3]"
    t["empty.json"] = ""
    t["chakra-schema.json"] = json.dumps(HOST_CHAKRA)
    t["attrs-not-a-list.json"] = json.dumps(HOST_CHAKRA).replace('"attrs": []', '"attrs": 5', 1)
    # ----- kineto_trace -----------------------------------------------------------------------
    t = files.setdefault("kineto_trace", {})
    kineto = json.dumps(KINETO)
    t["deep-args.json.gz"] = gz(kineto.replace('"External id": 1}', '"x": %s, "External id": 1}' %
                                               deep(100000), 1))
    t["number-overflow-ts.json"] = kineto.replace('"ts": 100', '"ts": 1e9990')
    t["number-overflow-mantissa.json"] = kineto.replace('"ts": 105', '"ts": 161e99916')
    t["events-not-a-list.json"] = json.dumps({"traceEvents": {"a": 1}})
    t["event-not-an-object.json"] = json.dumps({"traceEvents": [1, "x"]})
    t["legacy-list.json"] = json.dumps([{"ph": "X", "name": "aten::add", "ts": 1, "dur": 2,
                                          "pid": 7, "tid": 7}])
    t["duration-negative.json"] = kineto.replace('"dur": 20', '"dur": -20')
    t["timestamp-huge.json"] = kineto.replace('"ts": 112', '"ts": 18446744073709551615')
    t["empty.json"] = ""
    # ----- linked_trace -----------------------------------------------------------------------
    t = files.setdefault("linked_trace", {})
    t["host.json"] = host
    t["chakra-schema-process-groups.json"] = json.dumps(HOST_CHAKRA)
    t["process-groups-deep-string.json.gz"] = gz(json.dumps(HOST_CHAKRA).replace(
        '[{\\"pg_name\\": \\"0\\", \\"ranks\\": [0, 1], \\"group_size\\": 2}]', deep(100000)))
    t["deep-input-values.json.gz"] = gz(host.replace('[[7, 8, 0, 4, 4, "cuda:0"]]', deep(100000)))
    t["tensor-size-huge.json"] = host.replace('[[7, 8, 0, 4, 4, "cuda:0"]]',
                                              '[[7, 8, 0, 4611686018427387904, 8, "cuda:0"]]')
    t["trace-link-world-size.json"] = json.dumps(dict(HOST, trace_link={"rank": 3, "world_size": 2}))
    t["trace-link-not-object.json"] = json.dumps(dict(HOST, trace_link=[1]))
    t["schema-unknown.json"] = json.dumps(dict(HOST, schema="9.9"))
    t["number-overflow.json"] = host.replace('"pid": 7', '"pid": 1e9999')
    # ----- et_json ----------------------------------------------------------------------------
    t = files.setdefault("et_json", {})
    good = {"format": "chakra-et-json", "format_version": 1,
            "metadata": {"version": "0.0.4", "attr": []},
            "nodes": [{"id": 1, "name": "a", "type": "COMP_NODE", "duration_micros": 3},
                      {"id": 2, "name": "b", "type": "COMM_COLL_NODE", "data_deps": [1, 1, 1],
                       "attr": [{"name": "comm_size", "type": "int64_val", "value": 1048576}]}]}
    t["good.json"] = json.dumps(good)
    t["deep-attribute-value.json.gz"] = gz(
        '{"metadata": {"version": "x", "attr": [{"name": "a", "type": "int64_list", "value": ' +
        deep(100000) + '}]}, "nodes": []}')
    t["duplicate-metadata.json"] = ('{"metadata": {"version": "a"}, "nodes": [{"id": 1}], '
                                    '"metadata": {"version": "b"}}')
    t["duplicate-nodes.json"] = '{"metadata": {}, "nodes": [{"id": 1}], "nodes": [{"id": 2}]}'
    t["nodes-in-an-object.json"] = '{"metadata": {}, "nodes": {"x": {"id": 1}}}'
    t["nodes-nested-array.json"] = '{"metadata": {}, "nodes": [[{"id": 1}]]}'
    t["format-version.json"] = '{"format_version": 2, "metadata": {}, "nodes": []}'
    t["number-overflow.json"] = '{"metadata": {}, "nodes": [{"id": 1, "duration_micros": 1e9999}]}'
    t["id-over-64-bits.json"] = '{"metadata": {}, "nodes": [{"id": 18446744073709551616}]}'
    t["id-negative.json"] = '{"metadata": {}, "nodes": [{"id": -1}]}'
    t["bad-base64.json"] = '{"metadata": {}, "nodes": [{"id": 1, "unknown_fields": "!!!"}]}'
    t["bad-unknown-fields.json"] = '{"metadata": {}, "nodes": [{"id": 1, "unknown_fields": "/w=="}]}'
    t["scalar.json"] = '"metadata"'
    # ----- process_groups ---------------------------------------------------------------------
    t = files.setdefault("process_groups", {})
    t["json.txt"] = '[{"pg_name": "0", "ranks": [0, 1], "group_size": 2}]'
    t["reference-python-text.txt"] = ("['[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
                                      "\"backend_config\": \"cuda:nccl\", \"pg_size\": 2, "
                                      "\"ranks\": [0, 1]}]']")
    t["deep-json.txt"] = deep(3000)
    t["deep-python-tuples.txt"] = deep(3000, "(", ")")
    t["deep-in-string.txt"] = '"' + deep(3000) + '"'
    t["rank-negative.txt"] = '[{"pg_name": "0", "ranks": [-1]}]'
    t["rank-huge.txt"] = '[{"pg_name": "0", "ranks": [18446744073709551615]}]'
    t["unterminated-string.txt"] = "['[{\"pg_name\": \"0"
    t["escape-at-end.txt"] = "['\\"
    t["number-overflow.txt"] = '[{"pg_name": "0", "group_size": 1e9999}]'
    return files


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "test", "fuzz", "corpus")
    root = os.path.normpath(root)
    count = 0
    for target, entries in corpus().items():
        folder = os.path.join(root, target)
        os.makedirs(folder, exist_ok=True)
        for name, content in entries.items():
            data = content.encode() if isinstance(content, str) else content
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
            count += 1
    print("wrote %d inputs under %s" % (count, root))


if __name__ == "__main__":
    main()
