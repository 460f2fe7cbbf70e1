# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# The chakra module for waf-era ns-3 (3.35 and earlier): drop the repository into
# contrib/chakra. The source and header lists are read from CMakeLists.txt (its
# "set(chakra_<part>_sources ...)" and "..._headers" blocks), so the two builds cannot drift
# apart; the protobuf code is generated from schema/et_def.proto at build time, and protobuf,
# zlib, nlohmann-json, yaml-cpp and CLI11 come from the system.

import os
import re

TOOLS = {'chakra_jsonizer': 'chakra-jsonizer', 'chakra_et_info': 'chakra-et-info',
         'chakra_trace_link': 'chakra-trace-link', 'chakra_converter': 'chakra-converter',
         'chakra_check_ranks': 'chakra-check-ranks', 'chakra_generator': 'chakra-generator',
         'chakra_replay': 'chakra-replay', 'chakra_nccl_tests': 'chakra-nccl-tests'}


def cmake_lists(kind):
    """Every path of the set(chakra_<part>_<kind> ...) blocks of CMakeLists.txt, in order."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'CMakeLists.txt')) as cmake:
        text = cmake.read()
    paths = []
    for block in re.findall(r'set\(chakra_\w+_%s\s+([^)]*)\)' % kind, text):
        paths += [p for p in block.split() if p.startswith(('model/', 'helper/'))]
    return paths


def cmake_programs(variable):
    """The (name, source) pairs of CMakeLists.txt's set(<variable> name:source ...) block."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'CMakeLists.txt')) as cmake:
        block = re.search(r'set\(%s\s+([^)]*)\)' % variable, cmake.read()).group(1)
    return [tuple(pair.split(':', 1)) for pair in block.split()]


def configure(conf):
    conf.env.append_value('CXXFLAGS', ['-std=c++17'])
    conf.check_cfg(package='protobuf', args=['--cflags', '--libs'], uselib_store='PROTOBUF',
                   mandatory=True)
    conf.check_cfg(package='zlib', args=['--cflags', '--libs'], uselib_store='ZLIB',
                   mandatory=True)
    # Topology files (YAML/JSON): Debian's libyaml-cpp-dev.
    conf.check_cfg(package='yaml-cpp', args=['--cflags', '--libs'], uselib_store='YAMLCPP',
                   mandatory=True)
    # The tools' command lines: Debian's libcli11-dev (header-only).
    conf.check_cxx(header_name='CLI/CLI.hpp', mandatory=True,
                   msg='Checking for CLI11 (libcli11-dev)')
    conf.find_program('protoc', var='PROTOC')


def build(bld):
    # et_def.pb.cc / et_def.pb.h in the build directory, from the schema.
    bld(rule='${PROTOC} --proto_path=${SRC[0].parent.abspath()} --cpp_out=${TGT[0].parent.abspath()} ${SRC[0].abspath()}',
        source='schema/et_def.proto', target=['et_def.pb.cc', 'et_def.pb.h'])

    module = bld.create_ns3_module('chakra', ['core', 'network', 'internet', 'point-to-point',
                                              'applications', 'traffic-control'])
    module.source = cmake_lists('sources') + ['et_def.pb.cc']
    module.use += ['PROTOBUF', 'ZLIB', 'YAMLCPP']
    module.includes = ['.', bld.path.get_bld().abspath()]
    module.export_includes = [bld.path.get_bld().abspath()]

    # Installed flat as ns3/<name>.h, whatever folder the header lives in.
    headers = bld(features='ns3header')
    headers.module = 'chakra'
    headers.source = cmake_lists('headers')

    if bld.env.ENABLE_EXAMPLES:
        for tool, source in TOOLS.items():
            program = bld.create_ns3_program(tool, ['chakra'])
            program.source = ['utils/%s.cc' % source]
        for name, source in cmake_programs('chakra_examples'):
            example = bld.create_ns3_program(name, ['chakra'])
            example.source = source
