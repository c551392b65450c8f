# botwire: `make demo` and `make check` are the two commands of the README.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
# The main build's compiler (the check build is always clang, with sanitizers).
BW_CC ?= gcc
export BW_CC
FUZZ_SECONDS ?= 300
# Optional parts make check (and deps) leave out, by name: SKIP=ros,ros2,firmware,fuzz,python
SKIP ?=

.PHONY: all deps build demo check check-stress fuzz bench mutants install uninstall clean

all: build

deps:
	@SKIP="$(SKIP)" sh scripts/deps.sh

build: deps
	@sh scripts/own-build.sh $(BUILD)
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=$(BW_CC) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

demo: build
	@$(BUILD)/botwire demo --svg $(BUILD)/demo.svg
	@echo
	@echo "  the tool: $(BUILD)/botwire (try $(BUILD)/botwire --help); make install puts it in $(PREFIX)/bin"
	@echo "  next: make check runs every test; README.md and docs/ show what else it does"

check: deps
	@SKIP="$(SKIP)" sh scripts/check.sh

# The flake hunt: the real-time tests of the release build STRESS_RUNS times
# in a row (default 5) and of the sanitizer build STRESS_RUNS_CHECK times
# (default the same), with every core kept busy at nice 10; per test, its
# runs and failures with the line of each. STRESS_TESTS=REGEX: only those.
STRESS_RUNS ?= 5
STRESS_RUNS_CHECK ?= $(STRESS_RUNS)
STRESS_TESTS ?=
check-stress: deps
	@SKIP="$(SKIP)" STRESS=$(STRESS_RUNS) STRESS_CHECK=$(STRESS_RUNS_CHECK) STRESS_TESTS="$(STRESS_TESTS)" \
		sh scripts/check.sh

# A longer fuzz run of every parser (FUZZ_SECONDS each).
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh scripts/fuzz.sh

# Plausible mistakes, one at a time, each of which the tests must catch
# (tests/mutants.list; not part of make check: 20-40 minutes).
mutants: deps
	@sh tests/mutants.sh $(if $(MUTANT),'$(MUTANT)')

bench: build
	$(BUILD)/botwire bench

install: build
	@sh scripts/install.sh $(BUILD) $(PREFIX)

# Removes what make install put in PREFIX (its manifest lists it).
uninstall:
	@sh scripts/uninstall.sh $(PREFIX)

clean:
	rm -rf $(BUILD) build build-check
