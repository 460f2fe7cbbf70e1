# Two entry points for a newcomer on Debian 12:
#   make demo   install missing packages (as root), build, run the demo
#   make test   install missing packages (as root), build, run every test through CTest
# Other targets: make build, make bench, make clean;
#   make test-sanitize  the module and every test under ASan+UBSan+LSan (build-sanitize/)
#   make fuzz           libFuzzer targets, FUZZ_SECONDS each (default 60; build-fuzz/)
#   make format-check   every C++ file follows ns-3's style (.clang-format); make format applies it

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= 2
# Extra CMake arguments for the first configure of $(BUILD_DIR) (CI passes lighter debug info).
CMAKE_ARGS ?=

FUZZ_SECONDS ?= 60

.PHONY: all deps configure build demo test test-sanitize fuzz bench clean format format-check

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	scripts/demo.sh $(BUILD_DIR)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

test-sanitize: configure
	JOBS=$(JOBS) TEST_OBJECTS_FROM=$(BUILD_DIR) scripts/test-sanitize.sh

fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) scripts/fuzz.sh

bench: build
	scripts/bench.sh $(BUILD_DIR)

# make test-mpi: distributed runs over MPI (doc/building.md). Builds ns-3 3.37 with MPI and this
# module in-tree into a cache (~/.cache/chakra-ns3-mpi; the first build takes ~25 minutes, later
# ones rebuild what changed), then runs test/mpi/run-mpi-tests.sh with it.
.PHONY: test-mpi
test-mpi:
	JOBS=$(JOBS) scripts/build-ns3-mpi.sh
	test/mpi/run-mpi-tests.sh "$$(scripts/build-ns3-mpi.sh --bin-dir)"

format: deps
	scripts/format.sh apply

format-check: deps
	scripts/format.sh check

clean:
	rm -rf $(BUILD_DIR)
