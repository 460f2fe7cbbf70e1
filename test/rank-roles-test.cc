/*
 * Traces per role (chakra_generator --trace-per-role, <prefix>.roles.json): the rank shift
 * and group renaming worked out by hand, the manifest's errors, every rank's per-rank trace
 * equal to its role's trace shifted, node by node, and a simulation of the roles giving the
 * per-rank traces' report.
 */
#define BOOST_TEST_MODULE rank_roles
#include "chakra-test-data.h"
#include "llm-test-models.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace ns3;
using chakra_test::TempDir;

namespace
{

/** Every node of a trace. */
std::vector<ChakraProtoMsg::Node>
ReadNodes(const std::string& path, ChakraProtoMsg::GlobalMetadata* metadata = nullptr)
{
    std::vector<ChakraProtoMsg::Node> nodes;
    EtReader reader(path);
    if (metadata)
    {
        *metadata = reader.GetMetadata();
    }
    ChakraProtoMsg::Node node;
    while (reader.ReadNode(node))
    {
        nodes.push_back(node);
    }
    return nodes;
}

/** \return the message of what \p f throws (TraceError), "" if nothing */
template <typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const std::exception& e)
    {
        return e.what();
    }
    return "";
}

/** A small dense model: 4 layers, hidden 1024, 8 heads. */
LlmStepSpec
Spec(uint32_t gpus, uint32_t tp, uint32_t pp, uint32_t cp, uint64_t globalBatch, uint32_t zero)
{
    LlmStepSpec spec;
    spec.model = chakra_test::GeluTransformer("toy", 4, 1024, 8, 32000, 0, true);
    spec.layout.gpus = gpus;
    spec.layout.tp = tp;
    spec.layout.pp = pp;
    spec.layout.cp = cp;
    spec.layout.sequenceParallel = tp > 1;
    spec.layout.seq = 512;
    spec.layout.microBatch = 1;
    spec.layout.globalBatch = globalBatch;
    spec.layout.zero = zero;
    return spec;
}

/** \return the process groups a process_group:init node declares: name -> members */
std::map<std::string, std::vector<uint32_t>>
Groups(const ChakraProtoMsg::Node& node, const RankShift& shift)
{
    std::string error;
    std::map<std::string, std::vector<uint32_t>> groups;
    for (const auto& group : ParseProcessGroups(node.inputs().values(), error))
    {
        std::vector<uint32_t> ranks;
        for (uint32_t r : group.ranks)
        {
            ranks.push_back(shift.Map(r));
        }
        std::sort(ranks.begin(), ranks.end());
        groups[shift.Name(group.name)] = ranks;
    }
    BOOST_TEST(error.empty());
    return groups;
}

/**
 * Writes the step both ways and checks that rank r's trace is its role's with every rank id
 * mapped by the shift and every group renamed: node by node, whole (ids, names, types,
 * durations, sizes, dependencies, streams), after the peers, pg names and group lists of the
 * role's node are mapped.
 */
void
CheckRolesMatchRanks(const LlmStepSpec& spec,
                     const std::vector<std::pair<uint32_t, uint32_t>>& expectedDigits)
{
    TempDir dir;
    const auto perRank = WriteLlmStep(dir.File("ranks"), spec);
    const auto written = WriteLlmStepRoles(dir.File("roles"), spec);
    const RankRoles roles = ReadRankRoles(dir.File("roles.roles.json"));
    BOOST_TEST_REQUIRE(roles.digits.size() == expectedDigits.size());
    uint32_t sharing = 1; // ranks per role
    for (std::size_t i = 0; i < expectedDigits.size(); ++i)
    {
        BOOST_TEST(roles.digits[i].stride == expectedDigits[i].first, "digit " << i);
        BOOST_TEST(roles.digits[i].period == expectedDigits[i].second, "digit " << i);
        sharing *= expectedDigits[i].second;
    }
    BOOST_TEST(roles.roles.size() == spec.layout.gpus / sharing);
    BOOST_TEST(written.size() == roles.roles.size() + 1);
    BOOST_TEST(roles.ranks == perRank.size());
    uint64_t shiftedIds = 0; // peers and members the shift moved (the test must exercise it)
    for (uint32_t rank = 0; rank < perRank.size(); ++rank)
    {
        const RankShift shift = roles.ShiftOf(rank);
        BOOST_TEST(shift.Map(roles.RoleOf(rank)) == rank);
        ChakraProtoMsg::GlobalMetadata expectedMetadata;
        ChakraProtoMsg::GlobalMetadata roleMetadata;
        const auto expected = ReadNodes(perRank[rank], &expectedMetadata);
        const auto role = ReadNodes(roles.TraceOf(rank), &roleMetadata);
        BOOST_TEST(roleMetadata.SerializeAsString() == expectedMetadata.SerializeAsString());
        BOOST_TEST_REQUIRE(role.size() == expected.size(), "rank " << rank);
        for (std::size_t i = 0; i < role.size(); ++i)
        {
            ChakraProtoMsg::Node got = role[i];
            ChakraProtoMsg::Node want = expected[i];
            for (auto& attr : *got.mutable_attr())
            {
                if (attr.name() == "comm_src" || attr.name() == "comm_dst")
                {
                    const auto mapped = static_cast<int32_t>(shift.Map(attr.int32_val()));
                    shiftedIds += mapped != attr.int32_val() ? 1 : 0;
                    attr.set_int32_val(mapped);
                }
                else if (attr.name() == "pg_name")
                {
                    attr.set_string_val(shift.Name(attr.string_val()));
                }
            }
            if (got.name().find("process_group:init") != std::string::npos)
            {
                const auto mapped = Groups(got, shift);
                BOOST_TEST((mapped == Groups(want, RankShift())), "rank " << rank);
                shiftedIds += mapped != Groups(got, RankShift()) ? 1 : 0;
                got.clear_inputs();
                want.clear_inputs();
            }
            BOOST_TEST(got.SerializeAsString() == want.SerializeAsString(),
                       "rank " << rank << " node " << i << " (" << want.name() << ")");
        }
    }
    BOOST_TEST(shiftedIds > 0);
}

/** Writes a manifest's text. */
void
WriteText(const std::string& path, const std::string& text)
{
    std::ofstream(path) << text;
}

} // namespace

// 16 ranks as 2 x 4 x 2 (tp-like digit a, rotated digit d, outer b): x = a + 2d + 8b.
BOOST_AUTO_TEST_CASE(shift_rotates_one_digit)
{
    RankShift shift = RankShift::One(3, 2, 4);
    BOOST_TEST(shift.Map(0) == 6u);   // a 0, d 0 -> 3: 0 + 2 x 3
    BOOST_TEST(shift.Map(3) == 1u);   // a 1, d 1 -> 0
    BOOST_TEST(shift.Map(13) == 11u); // a 1, d 2 -> 1, b 1: 1 + 2 + 8
    BOOST_TEST(shift.Map(15) == 13u); // a 1, d 3 -> 2, b 1: 1 + 4 + 8
    std::set<uint32_t> images;
    for (uint32_t x = 0; x < 16; ++x)
    {
        images.insert(shift.Map(x));
    }
    BOOST_TEST(images.size() == 16u); // a permutation
    shift.turns[0].shift = 4;         // a whole turn
    BOOST_TEST(shift.IsIdentity());
    BOOST_TEST(shift.Map(13) == 13u);
    BOOST_TEST(RankShift().Map(7) == 7u);
}

BOOST_AUTO_TEST_CASE(group_names_shift_by_their_stride)
{
    RankShift shift = RankShift::One(3,
                                     2,
                                     4,
                                     std::make_shared<const std::map<std::string, uint32_t>>(
                                         std::map<std::string, uint32_t>{{"tp", 1}, {"pp", 4}}));
    BOOST_TEST(shift.Name("tp5") == "tp8");     // 5 + 1 x 3
    BOOST_TEST(shift.Name("pp0") == "pp12");    // 0 + 4 x 3
    BOOST_TEST(shift.Name("dpcp3") == "dpcp3"); // no stride: every replica's
    BOOST_TEST(shift.Name("tp") == "tp");
    BOOST_TEST(shift.Name("7") == "7");
    BOOST_TEST(shift.Name("") == "");
    shift.turns[0].shift = 0;
    BOOST_TEST(shift.Name("tp5") == "tp5");
}

// Two digits of 16 ranks as 2 x 4 x 2 (a, d, b): x = a + 2d + 8b; a rotated by 1, d by 3.
BOOST_AUTO_TEST_CASE(shift_rotates_several_digits_at_once)
{
    RankShift shift;
    shift.turns.push_back({RankDigit{1,
                                     2,
                                     std::make_shared<const std::map<std::string, uint32_t>>(
                                         std::map<std::string, uint32_t>{{"cp", 1}, {"pp", 1}})},
                           1});
    shift.turns.push_back({RankDigit{2,
                                     4,
                                     std::make_shared<const std::map<std::string, uint32_t>>(
                                         std::map<std::string, uint32_t>{{"tp", 1}, {"pp", 4}})},
                           3});
    BOOST_TEST(shift.Map(0) == 7u);   // a 0 -> 1, d 0 -> 3: 1 + 6
    BOOST_TEST(shift.Map(13) == 10u); // a 1 -> 0, d 2 -> 1, b 1: 0 + 2 + 8
    BOOST_TEST(shift.Map(7) == 4u);   // a 1 -> 0, d 3 -> (3 + 3) % 4 = 2: 0 + 4
    std::set<uint32_t> images;
    for (uint32_t x = 0; x < 16; ++x)
    {
        images.insert(shift.Map(x));
    }
    BOOST_TEST(images.size() == 16u);
    // Each turn adds its stride x its shift: pp 0 + 1 x 1 + 4 x 3; tp only by d; cp only by a.
    BOOST_TEST(shift.Name("pp0") == "pp13");
    BOOST_TEST(shift.Name("tp5") == "tp8");
    BOOST_TEST(shift.Name("cp2") == "cp3");
    BOOST_TEST(shift.Name("dpcp2") == "dpcp2");
    // The attribute text round-trips, and a bad one says what it expected.
    std::string error;
    const RankShift read = RankShift::FromText(shift.ToText(), error);
    BOOST_TEST(error.empty(), error);
    BOOST_TEST(read.ToText() == shift.ToText());
    BOOST_TEST(shift.ToText() == "1,1,2,cp:1,pp:1;3,2,4,pp:4,tp:1");
    for (uint32_t x = 0; x < 16; ++x)
    {
        BOOST_TEST(read.Map(x) == shift.Map(x));
    }
    BOOST_TEST(RankShift::FromText("", error).IsIdentity());
    BOOST_TEST(error.empty());
    RankShift::FromText("1,0,2", error);
    BOOST_TEST(error.find("'1,0,2' is not shift,stride,period") != std::string::npos, error);
    RankShift::FromText("1,1,2,tp", error);
    BOOST_TEST(error.find("'tp' is not prefix:stride") != std::string::npos, error);
}

BOOST_AUTO_TEST_CASE(manifest_round_trip_and_errors)
{
    TempDir dir;
    WriteText(dir.File("r.role.0.et"), "");
    WriteText(dir.File("r.role.1.et"), "");
    RankRoles roles;
    roles.ranks = 8;
    roles.digits = {RankDigit{2,
                              4,
                              std::make_shared<const std::map<std::string, uint32_t>>(
                                  std::map<std::string, uint32_t>{{"tp", 1}})}};
    roles.roles = {{0, "r.role.0.et"}, {1, "r.role.1.et"}};
    const std::string path = dir.File("r.roles.json");
    WriteRankRoles(path, roles);
    BOOST_TEST(HasRankRoles(dir.File("r")));
    const RankRoles read = ReadRankRoles(path);
    BOOST_TEST(read.ranks == 8u);
    BOOST_TEST(read.TraceOf(7) == dir.File("r.role.1.et")); // 7 = 1 + 2 x 3
    BOOST_TEST_REQUIRE(read.ShiftOf(7).turns.size() == 1u);
    BOOST_TEST(read.ShiftOf(7).turns[0].shift == 3u);
    BOOST_TEST(read.digits.at(0).groupStrides->at("tp") == 1u);

    // Version 1 (one digit, its keys at the top level) is still read.
    WriteText(path,
              R"({"format": "chakra-rank-roles", "version": 1, "ranks": 8, "shift_stride": 2,
                  "shift_period": 4, "roles": {"0": "r.role.0.et", "1": "r.role.1.et"},
                  "group_strides": {"tp": 1}})");
    const RankRoles old = ReadRankRoles(path);
    BOOST_TEST(old.TraceOf(7) == dir.File("r.role.1.et"));
    BOOST_TEST(old.ShiftOf(7).ToText() == read.ShiftOf(7).ToText());

    // Two digits: 8 ranks as 2 x 4, every rank a role's rotation of rank 0.
    roles.digits.insert(roles.digits.begin(), RankDigit{1, 2, nullptr});
    roles.roles = {{0, "r.role.0.et"}};
    WriteRankRoles(path, roles);
    const RankRoles both = ReadRankRoles(path);
    BOOST_TEST(both.digits.size() == 2u);
    for (uint32_t rank = 0; rank < 8; ++rank)
    {
        BOOST_TEST(both.RoleOf(rank) == 0u);
        BOOST_TEST(both.ShiftOf(rank).Map(0) == rank);
    }

    const std::string head = R"({"format": "chakra-rank-roles", "version": 1, "ranks": 8, )";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"format": "x"})", "key 'format'"},
        {head + R"("shift_period": 4, "roles": {}})", "key 'shift_stride': missing"},
        {head + R"("shift_stride": 0, "shift_period": 4, "roles": {}})", "key 'shift_stride'"},
        {head + R"("shift_stride": 2, "shift_period": 3, "roles": {}})",
         "key 'shift_period': shift_stride 2 x shift_period 3 does not divide the 8 ranks"},
        {head + R"("shift_stride": 2, "shift_period": 4, "roles": {"0": "r.role.0.et"}})",
         "key 'roles': no trace for role 1"},
        {head + R"("shift_stride": 2, "shift_period": 4, "roles": {"0": "r.role.0.et",
           "1": "r.role.1.et", "3": "r.role.1.et"}})",
         "key 'roles', rank 3: not a role"},
        {head + R"("shift_stride": 2, "shift_period": 4, "roles": {"0": "r.role.0.et",
           "1": "gone.et"}})",
         "key 'roles', rank 1: the trace " + dir.File("gone.et") + " does not exist"},
        {head + R"("shift_stride": 2, "shift_period": 4, "roles": {"0": "r.role.0.et",
           "1": "r.role.1.et"}, "group_strides": {"tp": -1}})",
         "key 'group_strides', 'tp'"},
        {R"({"format": "chakra-rank-roles", "version": 3, "ranks": 8})", "key 'version'"},
        {R"({"format": "chakra-rank-roles", "version": 2, "ranks": 8, "roles": {}})",
         "key 'digits': missing"},
        {R"({"format": "chakra-rank-roles", "version": 2, "ranks": 8,
             "digits": [{"stride": 1, "period": 4}, {"stride": 2, "period": 2}], "roles": {}})",
         "key 'digits', item 1: stride 2 x period 2 overlaps the digit before it"},
        {R"({"format": "chakra-rank-roles", "version": 2, "ranks": 8,
             "digits": [{"stride": 1, "period": 3}], "roles": {}})",
         "key 'digits', item 0: stride 1 x period 3 does not divide the 8 ranks"},
        {R"({"format": "chakra-rank-roles", "version": 2, "ranks": 8,
             "digits": [{"stride": 1}], "roles": {}})",
         "key 'digits', item 0, key 'period': missing"},
        {R"({"format": "chakra-rank-roles", "version": 2, "ranks": 8,
             "digits": [{"stride": 1, "period": 2, "group_strides": {"pp": "x"}}], "roles": {}})",
         "key 'digits', item 0, key 'group_strides', 'pp'"},
    };
    for (const auto& [text, message] : cases)
    {
        WriteText(path, text);
        const std::string error = ErrorOf([&] { ReadRankRoles(path); });
        BOOST_TEST(error.find(path) != std::string::npos, error);
        BOOST_TEST(error.find(message) != std::string::npos,
                   error << " (expected " << message << ")");
    }
}

// 32 GPUs: tp 2, pp 2, dp 8 (ZeRO 1: weight all-gathers and gradient reduce-scatters over
// the data-parallel groups, tied embeddings over the pipeline's ends): one role per stage, its
// ranks rotating the tensor digit (stride 1, period 2) and the data-parallel one (2, 8).
BOOST_AUTO_TEST_CASE(roles_match_per_rank_traces)
{
    CheckRolesMatchRanks(Spec(32, 2, 2, 1, 32, 1), {{1, 2}, {2, 8}});
}

// 32 GPUs: tp 2, cp 2, pp 2, dp 4: the context ring's sends and receives.
BOOST_AUTO_TEST_CASE(roles_match_per_rank_traces_with_context_parallelism)
{
    CheckRolesMatchRanks(Spec(32, 2, 2, 2, 16, 0), {{1, 2}, {2, 2}, {4, 4}});
}

// 32 GPUs: tp 4 with userbuffers' ring exchanges between tensor-parallel neighbours, pp 2,
// dp 4: the exchanges' peers rotate with the tensor digit.
BOOST_AUTO_TEST_CASE(roles_match_per_rank_traces_with_tensor_ring_exchanges)
{
    LlmStepSpec spec = Spec(32, 4, 2, 1, 8, 1);
    spec.layout.tpCommOverlap = TpCommOverlap::Userbuffers;
    CheckRolesMatchRanks(spec, {{1, 4}, {4, 4}});
}

/**
 * \return the toy model with 8 routed experts (top 2) and a shared one, its first layer dense,
 *         on \p gpus GPUs: tp (with sequence parallelism), ep, etp (0: tp), pp 2, cp
 */
LlmStepSpec
RoleMoeSpec(uint32_t gpus, uint32_t tp, uint32_t cp, uint32_t ep, uint32_t etp)
{
    LlmStepSpec spec = Spec(gpus, tp, 2, cp, 2 * gpus / (tp * cp * 2), 1);
    spec.model.experts = 8;
    spec.model.topK = 2;
    spec.model.sharedExperts = 1;
    spec.model.moeFfn = 2048;
    spec.model.denseLayers = 1;
    spec.layout.ep = ep;
    spec.layout.etp = etp;
    return spec;
}

// MoE, 32 GPUs: tp 2 (etp 2), ep 4, dp 8, pp 2. A stage's index tp + 2 x dp is also
// etp + 2 x (ep + 4 x edp): the data-parallel digit (stride 2, period 8) is cut at the
// expert-parallel one's end, so the digits are tp (1, 2), ep (2, 4) and edp (8, 2); the
// all-to-alls' groups and the expert gradients' groups rotate with them.
BOOST_AUTO_TEST_CASE(moe_roles_match_per_rank_traces)
{
    CheckRolesMatchRanks(RoleMoeSpec(32, 2, 1, 4, 0), {{1, 2}, {2, 4}, {8, 2}});
}

// MoE, 32 GPUs: tp 2 with etp 1, ep 4, cp 2, dp 4, pp 2: the expert grid reads the stage's
// index as ep + 4 x edp, across the tensor and context digits: cuts at 1, 2, 4, 16.
BOOST_AUTO_TEST_CASE(moe_roles_match_per_rank_traces_across_tensor_and_context_digits)
{
    CheckRolesMatchRanks(RoleMoeSpec(32, 2, 2, 4, 1), {{1, 2}, {2, 2}, {4, 4}});
}

// tp 2 with etp 1 and ep 3: the cuts 2 and 3 do not nest, so no rotation keeps both grids.
BOOST_AUTO_TEST_CASE(moe_roles_refused_when_the_grids_do_not_nest)
{
    LlmStepSpec spec = RoleMoeSpec(24, 2, 1, 3, 1);
    spec.model.experts = 6;
    const std::string why = LlmStepRolesUnavailable(spec);
    BOOST_TEST(why.find("etp 1 x ep 3") != std::string::npos, why);
    BOOST_TEST(why.find("2 does not divide 3") != std::string::npos, why);
    TempDir dir;
    BOOST_CHECK_THROW(WriteLlmStepRoles(dir.File("moe"), spec), std::invalid_argument);
    BOOST_TEST(!std::filesystem::exists(dir.File("moe.roles.json")));
    BOOST_TEST(LlmStepRolesUnavailable(RoleMoeSpec(32, 2, 1, 4, 0)).empty());
}

BOOST_AUTO_TEST_CASE(shared_store_is_one_per_file)
{
    TempDir dir;
    const auto files = WriteLlmStep(dir.File("s"), Spec(2, 2, 1, 1, 1, 0));
    auto a = EtNodeStore::Shared(files[0], "", {});
    auto b = EtNodeStore::Shared(files[0], "", {});
    auto trimmed = EtNodeStore::Shared(files[0], "DropUnsimulatedFields", DropUnsimulatedFields);
    BOOST_TEST(a.get() == b.get());
    BOOST_TEST(a.get() != trimmed.get());
    BOOST_TEST(a->GetSize() == ReadNodes(files[0]).size());
    // Two feeders of one store hand out the same node objects.
    EtFeeder first(a);
    EtFeeder second(b);
    BOOST_TEST_REQUIRE(first.HasNodesToIssue());
    BOOST_TEST_REQUIRE(second.HasNodesToIssue());
    BOOST_TEST(first.GetNextIssuableNode().get() == second.GetNextIssuableNode().get());
}

/**
 * Simulates \p spec's step per rank and per role on 4 hosts of 8 GPUs (flow) and checks that
 * the reports are one: iteration time, every rank's finish, every collective (with its group's
 * name) and message.
 */
void
CheckRolesSimulateAsRanks(const LlmStepSpec& spec)
{
    TempDir dir;
    WriteLlmStep(dir.File("ranks"), spec);
    WriteLlmStepRoles(dir.File("roles"), spec);
    chakra_test::ClusterConfig config;
    config.hosts = 4;
    config.gpusPerHost = 8;
    config.transport = "flow";
    const ChakraReport perRank = chakra_test::RunCluster(dir.File("ranks"), config);
    const ChakraReport perRole = chakra_test::RunCluster(dir.File("roles"), config);
    BOOST_TEST_REQUIRE(perRank.AllFinished());
    BOOST_TEST_REQUIRE(perRole.AllFinished());
    BOOST_TEST(perRole.GetIterationTime() == perRank.GetIterationTime());
    BOOST_TEST(perRank.GetIterationTime().IsStrictlyPositive());
    BOOST_TEST_REQUIRE(perRole.GetRanks().size() == perRank.GetRanks().size());
    for (std::size_t r = 0; r < perRank.GetRanks().size(); ++r)
    {
        BOOST_TEST(perRole.GetRanks()[r].finishTime == perRank.GetRanks()[r].finishTime,
                   "rank " << r);
    }
    const std::string a = dir.File("csv-ranks");
    const std::string b = dir.File("csv-roles");
    perRank.WriteCsv(a);
    perRole.WriteCsv(b);
    for (const char* file : {"/collectives.csv", "/comm-ops.csv", "/ranks.csv"})
    {
        std::ifstream x(a + file);
        std::ifstream y(b + file);
        std::stringstream sx;
        std::stringstream sy;
        sx << x.rdbuf();
        sy << y.rdbuf();
        BOOST_TEST(!sx.str().empty(), file);
        BOOST_TEST(sx.str() == sy.str(), file);
    }
}

// The per-role job simulated gives the per-rank job's report.
BOOST_AUTO_TEST_CASE(roles_simulate_as_per_rank_traces)
{
    CheckRolesSimulateAsRanks(Spec(32, 2, 2, 2, 16, 1));
}

// The same for an MoE step whose expert grid cuts across the tensor and context digits: the
// all-to-alls and the expert gradients' collectives land on the per-rank job's groups.
BOOST_AUTO_TEST_CASE(moe_roles_simulate_as_per_rank_traces)
{
    CheckRolesSimulateAsRanks(RoleMoeSpec(32, 2, 2, 4, 1));
}
