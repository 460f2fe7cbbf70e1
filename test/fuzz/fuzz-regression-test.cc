/*
 * Replays the fuzz regression corpus (test/fuzz/corpus/<target>/, every crasher ever found and
 * hand-made inputs of the crash classes) through the same entry points the libFuzzer
 * programs use, built with the normal compiler: an input that breaks the readers' contract
 * fails this test instead of aborting the fuzzer.
 */
#define BOOST_TEST_MODULE fuzz_regression
#include "fuzz-targets.h"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace
{

/** Violations become exceptions that name the input. */
struct Throwing
{
    Throwing()
    {
        chakra_fuzz::SetViolationHandler(
            [](const std::string& what) { throw std::runtime_error(what); });
    }
};

std::string
Read(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

} // namespace

BOOST_TEST_GLOBAL_FIXTURE(Throwing);

BOOST_AUTO_TEST_CASE(every_corpus_input_keeps_the_contract)
{
    // The test runs in the source directory (CMakeLists.txt: WORKING_DIRECTORY).
    const fs::path corpus = "test/fuzz/corpus";
    BOOST_REQUIRE(fs::is_directory(corpus));
    for (const auto& target : chakra_fuzz::AllTargets())
    {
        std::size_t inputs = 0;
        const fs::path dir = corpus / target.name;
        BOOST_TEST_CONTEXT(dir.string())
        {
            BOOST_REQUIRE(fs::is_directory(dir));
            std::vector<fs::path> files;
            for (const auto& entry : fs::directory_iterator(dir))
            {
                files.push_back(entry.path());
            }
            std::sort(files.begin(), files.end());
            for (const auto& file : files)
            {
                const std::string bytes = Read(file);
                try
                {
                    target.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
                }
                catch (const std::exception& e)
                {
                    BOOST_ERROR(file.string() << ": " << e.what());
                }
                ++inputs;
            }
            // Every target keeps inputs of its crash classes.
            BOOST_TEST(inputs >= 3u);
        }
    }
}
