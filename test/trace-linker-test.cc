/*
 * TraceLinker on small hand-made trace pairs, one rule at a time. Expected values are worked
 * out by hand from the events written in each test (times in microseconds).
 */
#define BOOST_TEST_MODULE trace_linker
#include "chakra-test-data.h"
#include "linked-trace-check.h"

#include "ns3/op-alignment.h"
#include "ns3/trace-error.h"
#include "ns3/trace-linker.h"

#include <boost/test/unit_test.hpp>

using namespace ns3;
using chakra_test::TempDir;
using Json = nlohmann::ordered_json;

namespace
{

const char* kProcess = "[pytorch|profiler|execution_trace|process]";
const char* kThread = "[pytorch|profiler|execution_trace|thread]";

/** A schema 1.0.1 host node. */
Json
Node101(uint64_t id,
        const std::string& name,
        uint64_t parent,
        int tid,
        int64_t rf = 0,
        int64_t seq = -1,
        uint64_t fwParent = 0)
{
    return Json{{"name", name},
                {"id", id},
                {"rf_id", rf},
                {"parent", parent},
                {"fw_parent", fwParent},
                {"seq_id", seq},
                {"scope", 0},
                {"tid", tid},
                {"fw_tid", 0},
                {"op_schema", ""},
                {"inputs", Json::array()},
                {"input_shapes", Json::array()},
                {"input_types", Json::array()},
                {"outputs", Json::array()},
                {"output_shapes", Json::array()},
                {"output_types", Json::array()}};
}

/** A "-chakra" schema host node. */
Json
NodeChakra(uint64_t id,
           const std::string& name,
           uint64_t parent,
           int tid,
           int64_t rf = 0,
           uint64_t fwParent = 0)
{
    Json empty = {{"values", Json::array()}, {"shapes", Json::array()}, {"types", Json::array()}};
    Json attrs = Json::array();
    attrs.push_back({{"name", "rf_id"}, {"type", "uint64"}, {"value", rf}});
    attrs.push_back({{"name", "fw_parent"}, {"type", "uint64"}, {"value", fwParent}});
    attrs.push_back({{"name", "seq_id"}, {"type", "int64"}, {"value", -1}});
    attrs.push_back({{"name", "tid"}, {"type", "uint64"}, {"value", tid}});
    return Json{{"id", id},
                {"name", name},
                {"ctrl_deps", parent},
                {"inputs", empty},
                {"outputs", empty},
                {"attrs", attrs}};
}

Json
HostDoc(const std::string& schema, int64_t pid, const Json& nodes)
{
    return Json{{"schema", schema},
                {"pid", pid},
                {"time", "2024-01-01 00:00:00"},
                {"start_ts", 1},
                {"finish_ts", 2},
                {"nodes", nodes}};
}

/** The process node, one thread node per tid (ids 2, 3, ...) and the given ops. */
Json
Host101(std::vector<Json> ops, std::vector<int> tids = {1}, int64_t pid = 100)
{
    Json nodes = Json::array();
    nodes.push_back(Node101(1, kProcess, 1, 0));
    for (std::size_t i = 0; i < tids.size(); ++i)
    {
        nodes.push_back(Node101(2 + i, kThread, 1, tids[i]));
    }
    for (auto& op : ops)
    {
        nodes.push_back(std::move(op));
    }
    return HostDoc("1.0.1", pid, nodes);
}

Json
Event(const std::string& cat,
      const std::string& name,
      Json tid,
      double ts,
      double dur,
      Json args,
      Json pid = 100)
{
    return Json{{"ph", "X"},
                {"cat", cat},
                {"name", name},
                {"pid", pid},
                {"tid", tid},
                {"ts", ts},
                {"dur", dur},
                {"args", args}};
}

Json
Cpu(const std::string& name, int tid, int64_t ts, int64_t dur, int64_t ext, int64_t seq = -2)
{
    Json args = {{"External id", ext}};
    if (seq != -2)
    {
        args["Sequence number"] = seq;
    }
    return Event("cpu_op", name, tid, ts, dur, args);
}

Json
Runtime(const std::string& name,
        int tid,
        int64_t ts,
        int64_t dur,
        int64_t correlation,
        const std::string& cat = "cuda_runtime")
{
    return Event(cat,
                 name,
                 tid,
                 ts,
                 dur,
                 {{"correlation", correlation}, {"External id", correlation}});
}

Json
Device(const std::string& cat,
       const std::string& name,
       int64_t ts,
       int64_t dur,
       int64_t correlation,
       int stream)
{
    return Event(cat,
                 name,
                 stream,
                 ts,
                 dur,
                 {{"device", 0}, {"stream", stream}, {"correlation", correlation}},
                 0);
}

Json
Kineto(std::vector<Json> events)
{
    Json list = Json::array();
    for (auto& e : events)
    {
        list.push_back(std::move(e));
    }
    return Json{{"schemaVersion", 1},
                {"distributedInfo", {{"backend", "nccl"}, {"rank", 0}, {"world_size", 2}}},
                {"traceEvents", list}};
}

/** Links a pair written to temporary files. */
LinkResult
LinkJson(const Json& host, const Json& device, TraceLinker::Options options = {})
{
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("host.json"), host.dump());
    chakra_test::WriteFileBytes(dir.File("device.json"), device.dump());
    return TraceLinker(options).Link(dir.File("host.json"), dir.File("device.json"), 0);
}

/** \return the k-th node named \p name */
const Json&
Find(const Json& trace, const std::string& name, int k = 0)
{
    for (const auto& node : trace["nodes"])
    {
        if (node["name"] == name && k-- == 0)
        {
            return node;
        }
    }
    BOOST_FAIL("no node " + name);
    return trace;
}

/** \return the error message of linking the pair, "" if it links */
std::string
LinkError(const std::string& hostBytes, const std::string& deviceBytes, std::string* dirPath)
{
    static TempDir dir;
    *dirPath = dir.Path();
    chakra_test::WriteFileBytes(dir.File("h.json"), hostBytes);
    chakra_test::WriteFileBytes(dir.File("d.json"), deviceBytes);
    try
    {
        TraceLinker().Link(dir.File("h.json"), dir.File("d.json"), 0);
    }
    catch (const TraceError& e)
    {
        return e.what();
    }
    return "";
}

/** A host/device pair that links: one op launching one kernel. */
Json
SimpleHost()
{
    return Host101({Node101(3, "aten::add", 2, 1)});
}

Json
SimpleDevice()
{
    return Kineto({Cpu("aten::add", 10, 0, 10, 1),
                   Runtime("cudaLaunchKernel", 10, 2, 2, 5),
                   Device("kernel", "add_kernel", 5, 3, 5, 7)});
}

} // namespace

BOOST_AUTO_TEST_CASE(rf_id_matching_with_chakra_schema)
{
    // Record function ids decide, although an earlier copy of the same ops comes first.
    Json nodes = Json::array({NodeChakra(1, kProcess, 1, 0),
                              NodeChakra(2, kThread, 1, 1),
                              NodeChakra(3, "aten::mm", 2, 1, 11),
                              NodeChakra(4, "aten::empty", 3, 1, 12),
                              NodeChakra(6, "aten::relu", 2, 1, 13)});
    Json host = HostDoc("1.0.2-chakra.0.0.4", 100, nodes);
    auto rf = [](Json e, int64_t id) {
        e["args"]["Record function id"] = id;
        return e;
    };
    Json device = Kineto({rf(Cpu("aten::mm", 500, 20, 30, 1), 7),
                          rf(Cpu("aten::empty", 500, 25, 5, 2), 8),
                          rf(Cpu("aten::relu", 500, 60, 10, 3), 9),
                          rf(Cpu("aten::mm", 500, 100, 300, 4), 11),
                          rf(Cpu("aten::empty", 500, 150, 10, 5), 12),
                          rf(Cpu("aten::relu", 500, 500, 100, 6), 13),
                          Runtime("cudaLaunchKernel", 500, 30, 2, 40),
                          Device("kernel", "gemm", 40, 5, 40, 7),
                          Runtime("cudaLaunchKernel", 500, 200, 10, 41),
                          Device("kernel", "gemm", 300, 50, 41, 7)});
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    BOOST_TEST(r.summary.method == "rf_id");
    BOOST_TEST(r.summary.hostOps == 3u);
    BOOST_TEST(r.summary.hostOpsLinked == 3u);
    BOOST_TEST(r.summary.gpuOps == 2u);
    BOOST_TEST(r.summary.gpuOpsAttached == 1u);

    const Json& mm = Find(r.trace, "aten::mm");
    BOOST_TEST(mm["id"] == 3);
    BOOST_TEST(mm["ts"] == 100);
    BOOST_TEST(mm["inclusive_dur"] == 300);
    BOOST_TEST(mm["exclusive_dur"] == 290); // minus aten::empty's 10
    const Json& gemm = Find(r.trace, "gemm");
    BOOST_TEST(gemm["id"] == 4);
    BOOST_TEST(gemm["ctrl_deps"] == 3); // an integer, as the host schema writes parents
    BOOST_TEST(gemm["cat"] == "kernel");
    BOOST_TEST(gemm["ts"] == 300);
    BOOST_TEST(gemm["dur"] == 50);
    BOOST_TEST(gemm["stream"] == 7);
    BOOST_TEST(gemm["correlation"] == 41);
    BOOST_TEST(gemm["tid"] == 1);
    BOOST_TEST(gemm["attrs"] == Json::array());
    BOOST_TEST(gemm["inputs"]["values"] == Json::array());
    const Json& empty = Find(r.trace, "aten::empty");
    BOOST_TEST(empty["id"] == 5);
    BOOST_TEST(empty["ctrl_deps"] == 3);
    BOOST_TEST(empty["ts"] == 150);
    const Json& relu = Find(r.trace, "aten::relu");
    BOOST_TEST(relu["id"] == 6);
    BOOST_TEST(relu["ctrl_deps"] == 2);
    BOOST_TEST(relu["ts"] == 500);
    BOOST_TEST(relu["exclusive_dur"] == 100);

    const Json& link = r.trace["trace_link"];
    BOOST_TEST(link["match"] == "rf_id");
    BOOST_TEST(link["world_size"] == 2);
    BOOST_TEST(link["backend"] == "nccl");
    BOOST_TEST(link["unmatched"].size() == 1u);
    BOOST_TEST(link["unmatched"][0]["kind"] == "gpu");
    BOOST_TEST(link["unmatched"][0]["correlation"] == 40);
    BOOST_TEST(link["unmatched"][0]["reason_code"] == "outside-iteration");
}

BOOST_AUTO_TEST_CASE(order_matching_with_shift_and_sequence_numbers)
{
    // Two identical iterations after three extra ops; the host's sequence numbers (5, 6, 7)
    // are those of the second one.
    Json host = Host101({Node101(3, "aten::linear", 2, 1, 1, 5),
                         Node101(4, "aten::t", 3, 1, 2),
                         Node101(5, "aten::addmm", 3, 1, 3, 6),
                         Node101(6, "aten::relu", 2, 1, 4, 7)});
    Json device =
        Kineto({Event("user_annotation", "ProfilerStep#2", 77, 0, 5000, {{"External id", 1}}),
                Cpu("aten::zeros", 77, 10, 10, 2),
                Cpu("aten::empty", 77, 12, 2, 3),
                Cpu("aten::linear", 77, 100, 100, 4, 1),
                Cpu("aten::t", 77, 110, 10, 5),
                Cpu("aten::addmm", 77, 130, 60, 6, 2),
                Cpu("aten::relu", 77, 210, 20, 7, 3),
                Cpu("aten::linear", 77, 1000, 200, 8, 5),
                Cpu("aten::t", 77, 1010, 10, 9),
                Cpu("aten::addmm", 77, 1030, 160, 10, 6),
                Cpu("aten::relu", 77, 1210, 40, 11, 7)});
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    BOOST_TEST(r.summary.method == "order");
    BOOST_TEST(r.summary.hostOpsLinked == 4u);
    BOOST_TEST(Find(r.trace, "aten::linear")["ts"] == 1000);
    BOOST_TEST(Find(r.trace, "aten::linear")["inclusive_dur"] == 200);
    BOOST_TEST(Find(r.trace, "aten::linear")["exclusive_dur"] == 30); // 200 - 10 - 160
    BOOST_TEST(Find(r.trace, "aten::t")["ts"] == 1010);
    BOOST_TEST(Find(r.trace, "aten::addmm")["ts"] == 1030);
    BOOST_TEST(Find(r.trace, "aten::relu")["ts"] == 1210);
    BOOST_TEST(Find(r.trace, "aten::relu")["exclusive_dur"] == 40);
    BOOST_TEST(Find(r.trace, "aten::relu")["parent"] == 2);
    BOOST_TEST(r.trace["trace_link"]["iteration"]["name"] == "ProfilerStep#2");
    BOOST_TEST(r.trace["trace_link"]["iteration"]["dur"] == 5000);

    // Without sequence numbers nothing tells the iterations apart: the first one is taken.
    Json plain = device;
    for (auto& e : plain["traceEvents"])
    {
        e["args"].erase("Sequence number");
    }
    LinkResult first = LinkJson(host, plain);
    BOOST_TEST(Find(first.trace, "aten::linear")["ts"] == 100);
}

BOOST_AUTO_TEST_CASE(missing_host_op_and_extra_device_op)
{
    Json host = Host101({Node101(3, "aten::a", 2, 1),
                         Node101(4, "aten::view", 2, 1),
                         Node101(5, "aten::b", 2, 1),
                         Node101(6, "aten::c", 2, 1),
                         Node101(7, "aten::d", 2, 1)});
    Json device = Kineto({Cpu("aten::a", 9, 0, 10, 1),
                          Cpu("aten::b", 9, 20, 10, 2),
                          Cpu("aten::extra", 9, 35, 5, 3),
                          Cpu("aten::c", 9, 50, 10, 4),
                          Cpu("aten::d", 9, 70, 10, 5)});
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    BOOST_TEST(r.summary.hostOps == 5u);
    BOOST_TEST(r.summary.hostOpsLinked == 4u);
    BOOST_TEST(Find(r.trace, "aten::a")["ts"] == 0);
    BOOST_TEST(Find(r.trace, "aten::b")["ts"] == 20);
    BOOST_TEST(Find(r.trace, "aten::c")["ts"] == 50);
    BOOST_TEST(Find(r.trace, "aten::d")["ts"] == 70);
    BOOST_TEST(!Find(r.trace, "aten::view").contains("ts"));
    const Json& unmatched = r.trace["trace_link"]["unmatched"];
    BOOST_REQUIRE(unmatched.size() == 1u);
    BOOST_TEST(unmatched[0]["kind"] == "host");
    BOOST_TEST(unmatched[0]["name"] == "aten::view");
    BOOST_TEST(unmatched[0]["input_id"] == 4);
    BOOST_TEST(unmatched[0]["id"] == 4);
    BOOST_TEST(unmatched[0]["reason_code"] == "not-in-device-trace");

    // A name that does occur, but beyond the search window, is reported as such.
    Json host2 = Host101(
        {Node101(3, "aten::a", 2, 1), Node101(4, "aten::e", 2, 1), Node101(5, "aten::b", 2, 1)});
    Json device2 = Kineto({Cpu("aten::a", 9, 0, 1, 1),
                           Cpu("aten::b", 9, 2, 1, 2),
                           Cpu("aten::x", 9, 4, 1, 3),
                           Cpu("aten::y", 9, 6, 1, 4),
                           Cpu("aten::z", 9, 8, 1, 5),
                           Cpu("aten::e", 9, 10, 1, 6)});
    TraceLinker::Options narrow;
    narrow.matchWindow = 2;
    LinkResult r2 = LinkJson(host2, device2, narrow);
    BOOST_TEST(r2.summary.hostOpsLinked == 2u);
    BOOST_TEST(Find(r2.trace, "aten::b")["ts"] == 2);
    BOOST_REQUIRE(r2.summary.unmatched.size() == 1u);
    BOOST_TEST(r2.summary.unmatched[0].name == "aten::e");
    BOOST_TEST(r2.summary.unmatched[0].reasonCode == "not-at-expected-position");
}

BOOST_AUTO_TEST_CASE(nested_ops_on_two_threads)
{
    // Main thread: fwd > linear > addmm launching two kernels, later step; autograd thread:
    // bwd > mm launching one kernel.
    Json host = Host101({Node101(4, "fwd", 2, 1),
                         Node101(5, "aten::linear", 4, 1),
                         Node101(6, "aten::addmm", 5, 1),
                         Node101(7, "bwd", 3, 2),
                         Node101(8, "aten::mm", 7, 2),
                         Node101(9, "step", 2, 1)},
                        {1, 2});
    Json device = Kineto({Cpu("fwd", 10, 0, 100, 1),
                          Cpu("aten::linear", 10, 10, 80, 2),
                          Cpu("aten::addmm", 10, 20, 60, 3),
                          Runtime("cudaLaunchKernel", 10, 30, 5, 101),
                          Runtime("cudaLaunchKernel", 10, 40, 5, 102),
                          Device("kernel", "k1", 50, 10, 101, 7),
                          Device("kernel", "k2", 60, 15, 102, 7),
                          Cpu("bwd", 20, 150, 100, 4),
                          Cpu("aten::mm", 20, 160, 80, 5),
                          Runtime("cudaLaunchKernel", 20, 170, 5, 103),
                          Device("kernel", "k3", 180, 50, 103, 8),
                          Cpu("step", 10, 300, 50, 6),
                          Runtime("cudaLaunchKernel", 10, 310, 2, 104),
                          Device("kernel", "k4", 320, 10, 104, 7)});
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    BOOST_TEST(r.summary.hostOpsLinked == 6u);
    BOOST_TEST(r.summary.gpuOpsAttached == 4u);
    // New ids: 1 process, 2-3 threads, 4 fwd, 5 linear, 6 addmm, 7 k1, 8 k2, 9 bwd, 10 mm,
    // 11 k3, 12 step, 13 k4.
    BOOST_TEST(Find(r.trace, "aten::addmm")["id"] == 6);
    BOOST_TEST(Find(r.trace, "k1")["id"] == 7);
    BOOST_TEST(Find(r.trace, "k1")["parent"] == 6);
    BOOST_TEST(Find(r.trace, "k2")["id"] == 8);
    BOOST_TEST(Find(r.trace, "k2")["parent"] == 6);
    BOOST_TEST(Find(r.trace, "k1")["tid"] == 1);
    BOOST_TEST(Find(r.trace, "bwd")["id"] == 9);
    BOOST_TEST(Find(r.trace, "aten::mm")["id"] == 10);
    BOOST_TEST(Find(r.trace, "aten::mm")["parent"] == 9);
    BOOST_TEST(Find(r.trace, "k3")["parent"] == 10);
    BOOST_TEST(Find(r.trace, "k3")["tid"] == 2);
    BOOST_TEST(Find(r.trace, "k3")["stream"] == 8);
    BOOST_TEST(Find(r.trace, "step")["id"] == 12);
    BOOST_TEST(Find(r.trace, "k4")["parent"] == 12);
    BOOST_TEST(Find(r.trace, "fwd")["exclusive_dur"] == 20);
    BOOST_TEST(Find(r.trace, "aten::linear")["exclusive_dur"] == 20);
    BOOST_TEST(Find(r.trace, "aten::addmm")["exclusive_dur"] == 60);
    // bwd starts after fwd ended; step resumes the main thread after bwd ended.
    BOOST_TEST(Find(r.trace, "bwd")["inter_thread_dep"] == 4);
    BOOST_TEST(Find(r.trace, "step")["inter_thread_dep"] == 9);
    BOOST_TEST(!Find(r.trace, "fwd").contains("inter_thread_dep"));
    BOOST_TEST(!Find(r.trace, "aten::mm").contains("inter_thread_dep"));
    BOOST_TEST(r.summary.interThreadDeps == 2u);
}

BOOST_AUTO_TEST_CASE(synchronisation_dependencies)
{
    Json host = Host101({Node101(3, "aten::add", 2, 1),
                         Node101(4, "aten::item", 2, 1),
                         Node101(5, "aten::_local_scalar_dense", 4, 1),
                         Node101(6, "aten::sum", 2, 1),
                         Node101(7, "wait", 2, 1),
                         Node101(8, "aten::copy_", 2, 1),
                         Node101(9, "after", 2, 1)});
    Json device = Kineto({
        Cpu("aten::add", 10, 0, 20, 1),
        Runtime("cudaLaunchKernel", 10, 5, 3, 1),
        Device("kernel", "K1", 10, 90, 1, 7),
        Cpu("aten::item", 10, 30, 170, 2),
        Cpu("aten::_local_scalar_dense", 10, 35, 160, 3),
        Runtime("cudaMemcpyAsync", 10, 40, 5, 2),
        Device("gpu_memcpy", "Memcpy DtoH", 100, 10, 2, 7),
        Runtime("cudaStreamSynchronize", 10, 50, 140, 3), // returns after the memcpy
        Cpu("aten::sum", 10, 210, 20, 4),
        Runtime("cudaLaunchKernel", 10, 215, 3, 4),
        Device("kernel", "K2", 220, 180, 4, 7),
        Cpu("wait", 10, 240, 180, 5),
        Runtime("cudaDeviceSynchronize", 10, 250, 160, 5),
        Cpu("aten::copy_", 10, 430, 70, 6),
        Runtime("cudaMemcpy", 10, 440, 50, 6), // blocking
        Device("gpu_memcpy", "Memcpy HtoD", 445, 40, 6, 7),
        Cpu("after", 10, 500, 10, 7),
    });
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    // Ids: 3 add, 4 K1, 5 item, 6 _local_scalar_dense, 7 DtoH, 8 sum, 9 K2, 10 wait,
    // 11 copy_, 12 HtoD, 13 after.
    BOOST_TEST(Find(r.trace, "Memcpy DtoH")["id"] == 7);
    BOOST_TEST(Find(r.trace, "Memcpy DtoH")["parent"] == 6);
    BOOST_TEST(Find(r.trace, "Memcpy DtoH")["cat"] == "gpu_memcpy");
    // The stream sync waited for the memcpy its own op launched: the next op carries it.
    BOOST_TEST(Find(r.trace, "aten::sum")["sync_deps"] == Json::array({7}));
    BOOST_TEST(!Find(r.trace, "aten::_local_scalar_dense").contains("sync_deps"));
    BOOST_TEST(!Find(r.trace, "aten::item").contains("sync_deps"));
    // The device sync in "wait" waited for K2 (the last op launched on the only stream): the
    // op runs its own time, then waits, so the next op (aten::copy_) carries the dependency.
    BOOST_TEST(Find(r.trace, "K2")["id"] == 9);
    BOOST_TEST(Find(r.trace, "aten::copy_")["sync_deps"] == Json::array({9}));
    BOOST_TEST(!Find(r.trace, "wait").contains("sync_deps"));
    // The blocking copy's own memcpy: carried by the op after it.
    BOOST_TEST(Find(r.trace, "Memcpy HtoD")["id"] == 12);
    BOOST_TEST(Find(r.trace, "after")["sync_deps"] == Json::array({12}));
    BOOST_TEST(r.summary.syncDeps == 3u);
    BOOST_TEST(r.trace["trace_link"]["sync_deps"] == 3);
    // wait_dur: from the sync call's start until the op it waited for ended (capped at the
    // call's end). _local_scalar_dense: 50 -> DtoH end 110 = 60; wait: 250 -> K2 end 400 =
    // 150; aten::copy_: 440 -> HtoD end 485 = 45.
    BOOST_TEST(Find(r.trace, "aten::_local_scalar_dense")["wait_dur"] == 60);
    BOOST_TEST(Find(r.trace, "wait")["wait_dur"] == 150);
    BOOST_TEST(Find(r.trace, "wait")["exclusive_dur"] == 180);
    BOOST_TEST(Find(r.trace, "aten::copy_")["wait_dur"] == 45);
    BOOST_TEST(!Find(r.trace, "aten::item").contains("wait_dur"));
    BOOST_TEST(!Find(r.trace, "aten::sum").contains("wait_dur"));
    // gap_dur: the thread's time between top-level ops, minus waits the deps express.
    // item: 30 - add's end 20; sum: 210 - item's end 200; wait: 240 - 230; copy_: 430 -
    // max(wait's end 420, K2's end 400); after: 500 - max(copy_'s end 500, HtoD's end 485) = 0.
    for (const char* name : {"aten::item", "aten::sum", "wait", "aten::copy_"})
    {
        BOOST_TEST(Find(r.trace, name)["gap_dur"] == 10, name);
    }
    BOOST_TEST(!Find(r.trace, "after").contains("gap_dur"));
    BOOST_TEST(!Find(r.trace, "aten::add").contains("gap_dur"));
}

BOOST_AUTO_TEST_CASE(rocm_launchers_and_categories)
{
    Json host = Host101(
        {Node101(3, "aten::mm", 2, 1), Node101(4, "aten::copy_", 2, 1), Node101(5, "wait", 2, 1)});
    Json device = Kineto({
        Cpu("aten::mm", 10, 0, 100, 1),
        Runtime("hipLaunchKernel", 10, 10, 2, 1),
        Device("kernel", "Cijk_Ailk_Bljk", 20, 30, 1, 3),
        Runtime("hipExtModuleLaunchKernel", 10, 14, 2, 2, "cuda_driver"),
        Device("kernel", "Cijk_second", 50, 10, 2, 3),
        Cpu("aten::copy_", 10, 110, 40, 2),
        Runtime("hipMemcpyAsync", 10, 115, 3, 3, "hip_runtime"),
        Device("gpu_memcpy", "CopyHostToDevice", 120, 10, 3, 3),
        Runtime("hipMemsetAsync", 10, 119, 1, 4),
        Device("gpu_memset", "FillBuffer", 130, 1, 4, 3),
        Cpu("wait", 10, 160, 40, 3),
        Runtime("hipDeviceSynchronize", 10, 165, 25, 5),
    });
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    BOOST_TEST(r.summary.gpuOpsAttached == 4u);
    BOOST_TEST(Find(r.trace, "Cijk_Ailk_Bljk")["parent"] == 3);
    BOOST_TEST(Find(r.trace, "Cijk_second")["parent"] == 3);
    BOOST_TEST(Find(r.trace, "CopyHostToDevice")["parent"] == 6);
    BOOST_TEST(Find(r.trace, "CopyHostToDevice")["cat"] == "gpu_memcpy");
    BOOST_TEST(Find(r.trace, "FillBuffer")["id"] == 8);
    BOOST_TEST(Find(r.trace, "FillBuffer")["cat"] == "gpu_memset");
    BOOST_TEST(Find(r.trace, "wait")["sync_deps"] == Json::array({8}));
}

BOOST_AUTO_TEST_CASE(unattached_gpu_ops_and_their_reasons)
{
    Json host = SimpleHost();
    Json device = SimpleDevice();
    auto& events = device["traceEvents"];
    events.push_back(Device("kernel", "early", 1, 1, 99, 7)); // launcher not in the file
    Json noCorrelation = Device("kernel", "anonymous", 2, 1, 0, 7);
    noCorrelation["args"].erase("correlation");
    events.push_back(noCorrelation);
    events.push_back(Runtime("cudaLaunchKernel", 10, 500, 1, 6)); // after the linked span
    events.push_back(Device("kernel", "late", 600, 1, 6, 7));
    events.push_back(Runtime("cudaLaunchKernel", 11, 4, 1, 7)); // another thread, no host op
    events.push_back(Device("kernel", "stray", 8, 1, 7, 7));
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    BOOST_TEST(r.summary.gpuOps == 5u);
    BOOST_TEST(r.summary.gpuOpsAttached == 1u);
    std::map<std::string, std::string> reasons;
    for (const auto& op : r.summary.unmatched)
    {
        BOOST_TEST((op.kind == UnmatchedOp::Kind::GPU));
        reasons[op.name] = op.reasonCode;
    }
    BOOST_TEST(reasons["early"] == "no-launcher");
    BOOST_TEST(reasons["anonymous"] == "no-correlation");
    BOOST_TEST(reasons["late"] == "outside-iteration");
    BOOST_TEST(reasons["stray"] == "no-enclosing-host-op");
    for (const auto& node : r.trace["nodes"])
    {
        BOOST_TEST(node["name"] != "early"); // never attached to a guessed op
        BOOST_TEST(node["name"] != "stray");
    }
}

BOOST_AUTO_TEST_CASE(references_are_remapped_in_both_schemas)
{
    // Old ids 3 (launches a kernel), 5, 7; node 7's fw_parent names node 5.
    Json host = Host101({Node101(3, "aten::add", 2, 1),
                         Node101(5, "aten::mul", 2, 1),
                         Node101(7, "MulBackward0", 2, 1, 0, -1, 5)});
    Json device = Kineto({Cpu("aten::add", 10, 0, 10, 1),
                          Runtime("cudaLaunchKernel", 10, 2, 2, 5),
                          Device("kernel", "add_kernel", 5, 3, 5, 7),
                          Cpu("aten::mul", 10, 20, 10, 2),
                          Cpu("MulBackward0", 10, 40, 10, 3)});
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    BOOST_TEST(Find(r.trace, "aten::mul")["id"] == 5);
    BOOST_TEST(Find(r.trace, "MulBackward0")["id"] == 6);
    BOOST_TEST(Find(r.trace, "MulBackward0")["fw_parent"] == 5);
    BOOST_TEST(Find(r.trace, "add_kernel")["parent"] == 3);
    const Json& gpu = Find(r.trace, "add_kernel");
    for (const char* key :
         {"inputs", "input_shapes", "input_types", "outputs", "output_shapes", "output_types"})
    {
        BOOST_TEST(gpu[key] == Json::array());
    }
    BOOST_TEST(r.trace["nodes"][0]["parent"] == 1); // the root still names itself

    Json nodes = Json::array({NodeChakra(1, kProcess, 1, 0),
                              NodeChakra(2, kThread, 1, 1),
                              NodeChakra(3, "aten::add", 2, 1),
                              NodeChakra(5, "aten::mul", 2, 1),
                              NodeChakra(7, "MulBackward0", 2, 1, 0, 5)});
    LinkResult c = LinkJson(HostDoc("1.1.1-chakra.0.0.4", 100, nodes), device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(c.trace) == "");
    const Json& backward = Find(c.trace, "MulBackward0");
    BOOST_TEST(backward["id"] == 6);
    BOOST_TEST(backward["ctrl_deps"] == 2);
    bool seen = false;
    for (const auto& attr : backward["attrs"])
    {
        if (attr["name"] == "fw_parent")
        {
            BOOST_TEST(attr["value"] == 5);
            seen = true;
        }
    }
    BOOST_TEST(seen);
    BOOST_TEST(Find(c.trace, "add_kernel")["ctrl_deps"] == 3);
    BOOST_TEST(!Find(c.trace, "add_kernel").contains("parent"));
    BOOST_TEST(c.trace["schema"] == "1.1.1-chakra.0.0.4");
}

BOOST_AUTO_TEST_CASE(legacy_profiler_list_gives_host_timings)
{
    Json host = Host101({Node101(3, "aten::zeros", 2, 1),
                         Node101(4, "aten::empty", 3, 1),
                         Node101(5, "aten::relu", 2, 1)});
    auto legacy = [](const std::string& name, double ts, double dur, int tid = 1) {
        return Json{{"name", name},
                    {"ph", "X"},
                    {"ts", ts},
                    {"dur", dur},
                    {"tid", tid},
                    {"pid", "CPU functions"},
                    {"args", Json::object()}};
    };
    Json list = Json::array({legacy("aten::zeros", 1, 3),
                             legacy("aten::empty", 2, 1),
                             legacy("ProfilerStep#0", 10, 500),
                             legacy("aten::zeros", 12, 80),
                             legacy("aten::empty", 13, 30.5),
                             legacy("aten::relu", 100, 7)});
    LinkResult r = LinkJson(host, list);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    BOOST_TEST(r.summary.legacyDeviceTrace);
    BOOST_TEST(r.summary.hostOpsLinked == 3u);
    BOOST_TEST(r.summary.gpuOps == 0u);
    BOOST_TEST(Find(r.trace, "aten::zeros")["ts"] == 12);
    BOOST_TEST(Find(r.trace, "aten::zeros")["inclusive_dur"] == 80);
    BOOST_TEST(Find(r.trace, "aten::zeros")["exclusive_dur"] == 49.5);
    BOOST_TEST(Find(r.trace, "aten::empty")["inclusive_dur"] == 30.5);
    BOOST_TEST(Find(r.trace, "aten::relu")["ts"] == 100);
    BOOST_TEST(r.trace["trace_link"]["iteration"]["name"] == "ProfilerStep#0");
}

BOOST_AUTO_TEST_CASE(kineto_events_as_a_bare_list_keep_their_categories)
{
    // Chrome's "array format": the events without the enclosing object.
    LinkResult r = LinkJson(SimpleHost(), SimpleDevice()["traceEvents"]);
    BOOST_TEST(r.summary.hostOpsLinked == 1u);
    BOOST_TEST(r.summary.gpuOpsAttached == 1u);
    BOOST_TEST(Find(r.trace, "add_kernel")["parent"] == 3);
    BOOST_TEST(!r.summary.legacyDeviceTrace);
}

BOOST_AUTO_TEST_CASE(fractional_times_are_kept)
{
    Json host = SimpleHost();
    Json device = Kineto({Cpu("aten::add", 10, 0, 10, 1),
                          Runtime("cudaLaunchKernel", 10, 2, 2, 5),
                          Device("kernel", "add_kernel", 5, 3, 5, 7)});
    device["traceEvents"][0]["ts"] = 5894416286426.397;
    device["traceEvents"][0]["dur"] = 12.25;
    device["traceEvents"][1]["ts"] = 5894416286427.5;
    device["traceEvents"][2]["ts"] = 5894416286430.125;
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(Find(r.trace, "aten::add")["ts"].get<double>() == 5894416286426.397);
    BOOST_TEST(Find(r.trace, "aten::add")["inclusive_dur"].get<double>() == 12.25);
    BOOST_TEST(Find(r.trace, "add_kernel")["ts"].get<double>() == 5894416286430.125);
    BOOST_TEST(Find(r.trace, "add_kernel")["parent"] == 3);
}

BOOST_AUTO_TEST_CASE(output_is_deterministic_atomic_and_may_be_gzipped)
{
    TempDir dir;
    chakra_test::WriteFileBytes(dir.File("h.json"), SimpleHost().dump());
    chakra_test::WriteFileBytes(dir.File("d.json"), SimpleDevice().dump());
    TraceLinker linker;
    LinkResult a = linker.Link(dir.File("h.json"), dir.File("d.json"), 3);
    LinkResult b = linker.Link(dir.File("h.json"), dir.File("d.json"), 3);
    WriteLinkedTrace(a, dir.File("a.json"));
    WriteLinkedTrace(b, dir.File("b.json.gz"));
    std::string bytes = chakra_test::ReadFileBytes(dir.File("a.json"));
    BOOST_TEST(!bytes.empty());
    BOOST_TEST(bytes == chakra_test::ReadMaybeGzip(dir.File("b.json.gz")));
    BOOST_TEST(bytes != chakra_test::ReadFileBytes(dir.File("b.json.gz"))); // really gzip'd
    Json back = Json::parse(bytes);
    BOOST_TEST(back == a.trace);
    BOOST_TEST(back["trace_link"]["rank"] == 3);
    BOOST_TEST(back["trace_link"]["version"] == 1);
    // Nothing but the two outputs: no temporary file left behind.
    BOOST_TEST(chakra_test::ListDir(dir.Path()).size() == 4u);
}

BOOST_AUTO_TEST_CASE(bad_inputs_give_clear_errors)
{
    std::string dir;
    const std::string host = SimpleHost().dump();
    const std::string device = SimpleDevice().dump();
    BOOST_TEST(LinkError(host, device, &dir) == "");

    std::string e = LinkError("{\"nodes\": [", device, &dir);
    BOOST_TEST(e.find(dir + "/h.json: byte") == 0u);
    BOOST_TEST(e.find("malformed JSON") != std::string::npos);
    e = LinkError(host, "{\"traceEvents\": [{\"ph\": \"X\",", &dir);
    BOOST_TEST(e.find(dir + "/d.json: byte") == 0u);
    e = LinkError("", device, &dir);
    BOOST_TEST(e == dir + "/h.json: the file is empty");
    e = LinkError(host, "", &dir);
    BOOST_TEST(e == dir + "/d.json: the file is empty");
    e = LinkError(HostDoc("1.0.1", 100, Json::array()).dump(), device, &dir);
    BOOST_TEST(e == dir + "/h.json: the trace has no nodes");
    e = LinkError(host, Kineto({}).dump(), &dir);
    BOOST_TEST(e == dir + "/d.json: the trace has no events");
    e = LinkError(host, "{\"schemaVersion\": 1}", &dir);
    BOOST_TEST(e.find(dir + "/d.json: top level: no \"traceEvents\"") == 0u);
    e = LinkError(host, Kineto({Device("kernel", "k", 1, 1, 1, 7)}).dump(), &dir);
    BOOST_TEST(e.find("no host operator") != std::string::npos);

    Json noName = SimpleHost();
    noName["nodes"][2].erase("name");
    e = LinkError(noName.dump(), device, &dir);
    BOOST_TEST(e == dir + "/h.json: node 3: \"name\" is missing or not a string");
    Json noParent = SimpleHost();
    noParent["nodes"][2].erase("parent");
    e = LinkError(noParent.dump(), device, &dir);
    BOOST_TEST(e.find(dir + "/h.json: node 3: \"parent\"") == 0u);
    Json dangling = SimpleHost();
    dangling["nodes"][2]["parent"] = 42;
    e = LinkError(dangling.dump(), device, &dir);
    BOOST_TEST(e == dir + "/h.json: node 3: parent 42 is not a node of the trace");
    Json duplicate = SimpleHost();
    duplicate["nodes"].push_back(Node101(3, "aten::mul", 2, 1));
    e = LinkError(duplicate.dump(), device, &dir);
    BOOST_TEST(e == dir + "/h.json: node 3: duplicate node id");

    // Issue 30 item 7: an operator that is its own parent (the converter stopped on it).
    // PyTorch's process root names itself (Host101's node 1): that stays accepted, in both
    // schema layouts.
    Json self = SimpleHost();
    self["nodes"][2]["parent"] = 3;
    e = LinkError(self.dump(), device, &dir);
    BOOST_TEST(e == dir + "/h.json: node 3 (aten::add): is its own parent (\"parent\": 3); only "
                          "the profiler's root nodes ([pytorch|profiler|...|process] or "
                          "|thread]) may name themselves");
    Json selfChakra = HostDoc("1.0.2-chakra.0.0.4",
                              100,
                              Json::array({NodeChakra(1, kProcess, 1, 0),
                                           NodeChakra(2, kThread, 1, 1),
                                           NodeChakra(3, "aten::add", 3, 1)}));
    e = LinkError(selfChakra.dump(), device, &dir);
    BOOST_TEST(e.find(dir + "/h.json: node 3 (aten::add): is its own parent (\"ctrl_deps\": 3)") ==
                   0u,
               e);

    Json cycle = Host101({Node101(3, "aten::add", 4, 1), Node101(4, "aten::mul", 3, 1)});
    e = LinkError(cycle.dump(), device, &dir);
    BOOST_TEST(e.find("the parent links form a cycle") != std::string::npos);

    Json noTs = SimpleDevice();
    noTs["traceEvents"][1].erase("ts");
    e = LinkError(host, noTs.dump(), &dir);
    BOOST_TEST(e ==
               dir + "/d.json: event #1 (cudaLaunchKernel): \"ts\" is missing or not a number");
    Json badCorrelation = SimpleDevice();
    badCorrelation["traceEvents"][2]["args"]["correlation"] = "x";
    e = LinkError(host, badCorrelation.dump(), &dir);
    BOOST_TEST(e == dir + "/d.json: event #2 (add_kernel): args.\"correlation\" is not an integer");

    Json otherRun = SimpleHost();
    otherRun["pid"] = 101;
    e = LinkError(otherRun.dump(), device, &dir);
    BOOST_TEST(e.find(dir + "/d.json: the traces come from different runs") == 0u);
    BOOST_TEST(e.find("pid 101") != std::string::npos);
    BOOST_TEST(e.find("pid 100") != std::string::npos);

    Json unrelated = Host101({Node101(3, "aten::conv2d", 2, 1)});
    e = LinkError(unrelated.dump(), device, &dir);
    BOOST_TEST(e.find("no host op of") != std::string::npos);
    for (const std::string& message : {e})
    {
        BOOST_TEST(message.find('\n') == std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(aligner_handles_shift_gaps_and_swaps)
{
    auto seq = [](std::vector<uint32_t> names) {
        OpSequence s;
        s.names = names;
        s.sequenceNumbers.assign(names.size(), OpSequence::kNone);
        s.ids.assign(names.size(), OpSequence::kNone);
        return s;
    };
    OpSequence host = seq({1, 2, 3, 4});
    OpSequence shifted = seq({9, 9, 1, 2, 3, 4});
    OpAligner a(host, shifted, 4);
    auto offsets = a.CandidateOffsets(3);
    BOOST_TEST((std::find(offsets.begin(), offsets.end(), 2) != offsets.end()));
    std::vector<int32_t> match;
    AlignmentScore s = a.Score(2, 4, &match);
    BOOST_TEST(s.matched == 4u);
    BOOST_TEST(s.skipped == 0u);
    BOOST_TEST((match == std::vector<int32_t>{2, 3, 4, 5}));

    OpSequence gappy = seq({1, 2, 5, 3, 4});
    OpSequence extra = seq({1, 2, 3, 7, 4});
    OpAligner b(gappy, extra, 4);
    s = b.Score(0, 5, &match);
    BOOST_TEST(s.matched == 4u);
    BOOST_TEST(s.skipped == 1u);
    BOOST_TEST((match == std::vector<int32_t>{0, 1, -1, 2, 4}));

    OpSequence ordered = seq({1, 2, 3});
    OpSequence swapped = seq({1, 3, 2});
    OpAligner c(ordered, swapped, 4);
    s = c.Score(0, 3, &match);
    BOOST_TEST(s.matched == 3u);
    BOOST_TEST((match == std::vector<int32_t>{0, 2, 1}));

    // Best offsets come out of Search with their full scores.
    auto results = a.Search(3, 2, 8);
    BOOST_REQUIRE(!results.empty());
    BOOST_TEST(results.front().offset == 2);
    BOOST_TEST(results.front().matched == 4u);
}

BOOST_AUTO_TEST_CASE(nccl_kernels_carry_their_process_group)
{
    Json host =
        Host101({Node101(3, "record_param_comms", 2, 1), Node101(4, "nccl:all_reduce", 3, 1)});
    Json nccl =
        Device("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)", 20, 50, 7, 30);
    nccl["args"]["Process Group Name"] = "0";
    Json plain = Device("kernel", "elementwise_kernel", 80, 5, 8, 7);
    plain["args"]["Process Group Name"] = "0"; // not an NCCL kernel: no pg_name
    Json device = Kineto({Cpu("record_param_comms", 10, 0, 100, 1),
                          Cpu("nccl:all_reduce", 10, 5, 90, 2),
                          Runtime("cudaLaunchKernelExC", 10, 10, 3, 7),
                          Runtime("cudaLaunchKernel", 10, 15, 3, 8),
                          nccl,
                          plain});
    device["distributedInfo"] = {{"backend", "nccl"},
                                 {"rank", 1},
                                 {"world_size", 2},
                                 {"pg_config", Json::array({{{"pg_name", "0"}}})}};
    LinkResult r = LinkJson(host, device); // rank 0 given, the trace says 1
    const Json& kernel = Find(r.trace, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)");
    BOOST_TEST(kernel["parent"] == 4);
    BOOST_TEST(kernel["pg_name"] == "0");
    BOOST_TEST(kernel["stream"] == 30);
    BOOST_TEST(!Find(r.trace, "elementwise_kernel").contains("pg_name"));
    BOOST_TEST(r.trace["trace_link"]["pg_config"][0]["pg_name"] == "0");
    BOOST_TEST(r.trace["trace_link"]["rank"] == 0);
    BOOST_REQUIRE(r.summary.warnings.size() == 1u);
    BOOST_TEST(r.summary.warnings[0].find("rank 1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_linked_trace_is_refused_as_the_host_trace)
{
    // Linking a linked trace again would attach every GPU op a second time.
    TempDir dir;
    LinkResult once = LinkJson(SimpleHost(), SimpleDevice());
    WriteLinkedTrace(once, dir.File("linked.json"));
    chakra_test::WriteFileBytes(dir.File("d.json"), SimpleDevice().dump());
    BOOST_CHECK_EXCEPTION(TraceLinker().Link(dir.File("linked.json"), dir.File("d.json"), 0),
                          TraceError,
                          [&](const TraceError& e) {
                              const std::string what = e.what();
                              return what.find(dir.File("linked.json")) == 0 &&
                                     what.find("already a linked trace") != std::string::npos &&
                                     what.find("trace_link") != std::string::npos;
                          });
    // Chakra's Python linker writes no trace_link, but its GPU ops have "cat".
    Json python = SimpleHost();
    python["nodes"].push_back({{"id", 4},
                               {"name", "add_kernel"},
                               {"parent", 3},
                               {"cat", "kernel"},
                               {"ts", 5},
                               {"dur", 3}});
    chakra_test::WriteFileBytes(dir.File("python.json"), python.dump());
    BOOST_CHECK_EXCEPTION(TraceLinker().Link(dir.File("python.json"), dir.File("d.json"), 0),
                          TraceError,
                          [&](const TraceError& e) {
                              const std::string what = e.what();
                              return what.find("node 4") != std::string::npos &&
                                     what.find("already a linked trace") != std::string::npos &&
                                     what.find("\"kernel\"") != std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(stream_waits_become_cross_stream_deps)
{
    // Stream 7: "a" (launched 5, runs 10-20); the NCCL kernel on stream 24 (launched 25,
    // runs 30-500); a cudaStreamWaitEvent at 40 (stream 7 waits for stream 24); "b" on stream 7
    // launched at 50 could start at ~55 but starts at 502, 2 us after the NCCL kernel ended:
    // it waited for it. "c" (launched 60, starts right after "b") and "d" (launched 600, starts
    // 1000 with no stream-wait call after the last NCCL launch... and nothing ending near 1000)
    // waited for nothing another stream did.
    Json host = Host101({Node101(3, "op_a", 2, 1),
                         Node101(4, "nccl:all_reduce", 2, 1),
                         Node101(5, "op_b", 2, 1),
                         Node101(6, "op_c", 2, 1),
                         Node101(7, "op_d", 2, 1)});
    Json device = Kineto({
        Cpu("op_a", 10, 0, 10, 1),
        Runtime("cudaLaunchKernel", 10, 5, 2, 101),
        Device("kernel", "a", 10, 10, 101, 7),
        Cpu("nccl:all_reduce", 10, 20, 30, 2),
        Runtime("cudaLaunchKernel", 10, 25, 2, 102),
        Device("kernel", "ncclKernel_AllReduce", 30, 470, 102, 24),
        Runtime("cudaStreamWaitEvent", 10, 40, 2, 103),
        Cpu("op_b", 10, 45, 10, 3),
        Runtime("cudaLaunchKernel", 10, 50, 2, 104),
        Device("kernel", "b", 502, 10, 104, 7),
        Cpu("op_c", 10, 58, 10, 4),
        Runtime("cudaLaunchKernel", 10, 60, 2, 105),
        Device("kernel", "c", 512, 5, 105, 7),
        Cpu("op_d", 10, 590, 20, 5),
        Runtime("cudaLaunchKernel", 10, 600, 2, 106),
        Device("kernel", "d", 1000, 5, 106, 7),
    });
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    const uint64_t nccl = Find(r.trace, "ncclKernel_AllReduce")["id"];
    BOOST_TEST(Find(r.trace, "b")["cross_stream_deps"] == Json::array({nccl}));
    for (const char* name : {"a", "c", "d", "ncclKernel_AllReduce"})
    {
        BOOST_TEST(!Find(r.trace, name).contains("cross_stream_deps"), name);
    }
    BOOST_TEST(r.summary.crossStreamDeps == 1u);
    BOOST_TEST(r.trace["trace_link"]["cross_stream_deps"] == 1);
    // Without the stream-wait call the delay is not taken for a wait on the other stream.
    Json noWait = device;
    auto& events = noWait["traceEvents"];
    for (auto it = events.begin(); it != events.end(); ++it)
    {
        if ((*it)["name"] == "cudaStreamWaitEvent")
        {
            events.erase(it);
            break;
        }
    }
    LinkResult r2 = LinkJson(host, noWait);
    BOOST_TEST(!Find(r2.trace, "b").contains("cross_stream_deps"));
    BOOST_TEST(r2.summary.crossStreamDeps == 0u);
}

BOOST_AUTO_TEST_CASE(a_thread_waiting_for_another_inside_an_op)
{
    // Main thread (1): "## backward ##" 0-1000 runs "aten::ones" 10-20, then idles until the
    // autograd thread (2) is done ("bw1" 100-500, "bw2" 520-980) and ends 20 us after "bw2";
    // "optimizer" 1010-1100. backward waited 20 -> 980 = 960 us of its 990 us own time; the
    // op after the wait (optimizer) carries the dependency on bw2.
    Json host = Host101({Node101(4, "## backward ##", 2, 1),
                         Node101(5, "aten::ones", 4, 1),
                         Node101(6, "bw1", 3, 2),
                         Node101(7, "bw2", 3, 2),
                         Node101(8, "optimizer", 2, 1)},
                        {1, 2});
    Json device = Kineto({Cpu("## backward ##", 10, 0, 1000, 1),
                          Cpu("aten::ones", 10, 10, 10, 2),
                          Cpu("bw1", 20, 100, 400, 3),
                          Cpu("bw2", 20, 520, 460, 4),
                          Cpu("optimizer", 10, 1010, 90, 5)});
    LinkResult r = LinkJson(host, device);
    BOOST_TEST(chakra_test::CheckLinkedTrace(r.trace) == "");
    const Json& backward = Find(r.trace, "## backward ##");
    BOOST_TEST(backward["exclusive_dur"] == 990);
    BOOST_TEST(backward["wait_dur"] == 960);
    BOOST_TEST(Find(r.trace, "optimizer")["inter_thread_dep"] == Find(r.trace, "bw2")["id"]);
    BOOST_TEST(r.summary.threadWaits == 1u);
    // The autograd thread starts after aten::ones (the existing first-op rule) ...
    BOOST_TEST(Find(r.trace, "bw1")["inter_thread_dep"] == Find(r.trace, "aten::ones")["id"]);
    // ... 80 us after it ended, and bw2 20 us after bw1: thread time outside any op (gap_dur);
    // optimizer follows backward's end (1000) 10 us later.
    BOOST_TEST(Find(r.trace, "bw1")["gap_dur"] == 80);
    BOOST_TEST(Find(r.trace, "bw2")["gap_dur"] == 20);
    BOOST_TEST(Find(r.trace, "optimizer")["gap_dur"] == 10);
    BOOST_TEST(!Find(r.trace, "aten::ones").contains("gap_dur")); // not top-level
    // An idle stretch that no other thread's op ends shortly before is CPU time: bw2 ending
    // 200 us before backward goes on is no release.
    Json late = device;
    for (auto& event : late["traceEvents"])
    {
        if (event["name"] == "bw2")
        {
            event["dur"] = 280; // ends at 800
        }
    }
    LinkResult r2 = LinkJson(host, late);
    BOOST_TEST(!Find(r2.trace, "## backward ##").contains("wait_dur"));
    BOOST_TEST(r2.summary.threadWaits == 0u);
}

BOOST_AUTO_TEST_CASE(device_properties_are_carried_into_trace_link)
{
    Json device = SimpleDevice();
    device["deviceProperties"] =
        Json::array({{{"id", 0}, {"name", "NVIDIA A100-SXM4-80GB"}, {"numSms", 108}},
                     {{"id", 1}, {"name", "NVIDIA A100-SXM4-80GB"}, {"numSms", 108}}});
    LinkResult r = LinkJson(SimpleHost(), device);
    BOOST_TEST(r.trace["trace_link"]["device_properties"].size() == 2u);
    BOOST_TEST(r.trace["trace_link"]["device_properties"][0]["name"] == "NVIDIA A100-SXM4-80GB");
    LinkResult none = LinkJson(SimpleHost(), SimpleDevice());
    BOOST_TEST(!none.trace["trace_link"].contains("device_properties"));
}
