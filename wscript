# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# The chakra module for waf-era ns-3 (3.35 and earlier): drop the repository into
# contrib/chakra. The source lists mirror CMakeLists.txt; the protobuf code is generated from
# schema/et_def.proto at build time, and protobuf, zlib and nlohmann-json come from the system.

import os

MODEL = ['trace-error', 'trace-file', 'et-attribute', 'et-node', 'et-reader', 'et-writer',
         'et-json', 'et-summary', 'compact-id-set', 'et-feeder', 'message-key', 'peer-transport',
         'communicator', 'compute-model', 'collective-algorithm', 'ring-collective',
         'direct-collective', 'halving-doubling-collective', 'tree-collective',
         'hierarchical-collective', 'collective', 'timeline-writer', 'chakra-application',
         'chakra-report', 'cluster-routing', 'ack-priority-queue']
HELPER = ['host-trace', 'kineto-trace', 'op-alignment', 'link-summary', 'trace-linker',
          'pytorch-trace', 'collective-call', 'process-group-table', 'dependency-cycle',
          'trace-converter', 'rank-consistency', 'gpu-cluster-helper', 'chakra-helper',
          'workload-generator', 'rank-trace-builder', 'gradient-bucketer',
          'tensor-parallel-workload', 'pipeline-parallel-workload', 'moe-workload',
          'cluster-scenario', 'replay-pipeline']
HEADER_ONLY = ['model/flat-id-map.h', 'model/text-format.h', 'helper/workload-spec-check.h']
TOOLS = {'chakra_jsonizer': 'chakra-jsonizer', 'chakra_et_info': 'chakra-et-info',
         'chakra_trace_link': 'chakra-trace-link', 'chakra_converter': 'chakra-converter',
         'chakra_check_ranks': 'chakra-check-ranks', 'chakra_generator': 'chakra-generator',
         'chakra_replay': 'chakra-replay'}


def configure(conf):
    conf.env.append_value('CXXFLAGS', ['-std=c++17'])
    conf.check_cfg(package='protobuf', args=['--cflags', '--libs'], uselib_store='PROTOBUF',
                   mandatory=True)
    conf.check_cfg(package='zlib', args=['--cflags', '--libs'], uselib_store='ZLIB',
                   mandatory=True)
    conf.find_program('protoc', var='PROTOC')


def build(bld):
    # et_def.pb.cc / et_def.pb.h in the build directory, from the schema.
    bld(rule='${PROTOC} --proto_path=${SRC[0].parent.abspath()} --cpp_out=${TGT[0].parent.abspath()} ${SRC[0].abspath()}',
        source='schema/et_def.proto', target=['et_def.pb.cc', 'et_def.pb.h'])

    module = bld.create_ns3_module('chakra', ['core', 'network', 'internet', 'point-to-point',
                                              'applications', 'traffic-control'])
    module.source = (['model/%s.cc' % name for name in MODEL] +
                     ['helper/%s.cc' % name for name in HELPER] + ['et_def.pb.cc'])
    module.use += ['PROTOBUF', 'ZLIB']
    module.includes = ['.', bld.path.get_bld().abspath()]
    module.export_includes = [bld.path.get_bld().abspath()]

    headers = bld(features='ns3header')
    headers.module = 'chakra'
    headers.source = (['model/%s.h' % name for name in MODEL] +
                      ['helper/%s.h' % name for name in HELPER] + HEADER_ONLY)

    if bld.env.ENABLE_EXAMPLES:
        for tool, source in TOOLS.items():
            program = bld.create_ns3_program(tool, ['chakra'])
            program.source = ['utils/%s.cc' % source, 'utils/tool-args.cc']
            program.includes = ['utils']
        example = bld.create_ns3_program('chakra-cluster', ['chakra'])
        example.source = 'examples/chakra-cluster.cc'
