# tpf-analyze — top-level entry points. `make run` and `make test` work on a
# fresh Debian 12 machine as root: they install what is missing, configure,
# build, then run.

BUILD      ?= build
TPF        := $(BUILD)/tools/tpf-analyze
PYTHON     ?= $(shell command -v python3.11 || command -v python3)
SHARED     ?= $(abspath ../shared)
TORCH_DIR  ?= /usr/lib/python3/dist-packages/torch
STDLIB_DIR ?= /usr/lib/python3.11
JOBS       ?= $(shell nproc)
PREFIX     ?= /usr/local

# Debian packages the build, the tests and the benchmarks need.
DEBS := g++ pkg-config re2c meson ninja-build \
        libboost-graph-dev libboost-program-options-dev doctest-dev \
        nlohmann-json3-dev libfmt-dev libmimalloc-dev libicu-dev libtomlplusplus-dev libyaml-cpp-dev unicode-data \
        python3 python3.11 libpython3.11-testsuite python3-torch python3-pyflakes time patch \
        git python3-venv python3-mesonpy pre-commit neovim

MESON_OPTS :=
ifeq ($(CI),true)
MESON_OPTS += -Dwerror=true
endif

.PHONY: all deps build run test test-corpus bench bench-memory clean test-sanitize test-threads fuzz install

all: build

# Install only what is missing (apt-get update runs only then).
deps:
	@missing=$$(for p in $(DEBS); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) $(MESON_OPTS)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD) -j $(JOBS)

run: build
	$(TPF) --target h100 examples/train.py

# All tests: doctest unit and golden tests (meson test, which also compares
# with CPython 3.12 and 3.13 where pyenv has them), then the CPython 3.11 AST
# comparison over both corpora (python3.11 is the oracle, so the files are
# read as --python-version 3.11).
test: build
	meson test -C $(BUILD) --print-errorlogs
	$(MAKE) --no-print-directory test-corpus

test-corpus: build
	@test -f $(SHARED)/tools/astcompare.py || { \
	  echo "error: $(SHARED)/tools/astcompare.py not found (set SHARED=/path/to/shared)"; exit 2; }
	@printf '#!/bin/sh\nexec "%s" --python-version 3.11 "$$@"\n' "$(abspath $(TPF))" > $(BUILD)/tpf-py3.11
	@chmod +x $(BUILD)/tpf-py3.11
	$(PYTHON) $(SHARED)/tools/astcompare.py --tpf $(BUILD)/tpf-py3.11 $(TORCH_DIR)
	$(PYTHON) $(SHARED)/tools/astcompare.py --tpf $(BUILD)/tpf-py3.11 $(STDLIB_DIR)

# Benchmarks, never tests: the frontend alone (tpf-bench vs ast.parse), then
# the whole pipeline side by side with ast.parse and pyflakes (issue 8).
bench: build
	$(PYTHON) tools/bench.py --tpf-bench $(BUILD)/tools/tpf-bench $(TORCH_DIR)
	$(PYTHON) tools/bench.py --tpf-bench $(BUILD)/tools/tpf-bench $(STDLIB_DIR)
	$(PYTHON) tools/bench_pipeline.py --tpf $(TPF) $(TORCH_DIR) $(STDLIB_DIR)

# Peak RSS per file over its size, for generated files of three shapes at 1,
# 4 and 16 MB (issue 20); MB="1 4 16 100" adds sizes.
MB ?= 1 4 16
bench-memory: build
	$(PYTHON) tools/bench_pipeline.py --tpf $(TPF) --repeat 1 --memory $(MB)

clean:
	rm -rf $(BUILD)

# Installs bin/tpf-analyze under PREFIX (`make install PREFIX=$$HOME/.local`);
# DESTDIR is honoured for packaging.
install: build
	meson configure $(BUILD) -Dprefix=$(abspath $(PREFIX))
	meson install -C $(BUILD) --quiet $(if $(DESTDIR),--destdir $(DESTDIR))

# ---- robustness (issue 7) ----
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
# Trees test-threads analyzes with two threads (imported modules are shared
# between them): the multi-file fixtures and the examples by default; add
# real repositories with THREAD_TREES="... /path/to/repo".
THREAD_TREES ?= test/projects examples
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= lexer parser grammar ir pipeline fix

# The whole test suite and both corpora under AddressSanitizer + UBSan.
test-sanitize: deps
	test -f $(ASAN_BUILD)/build.ninja || meson setup $(ASAN_BUILD) -Dsanitize_all=true -Dbuildtype=debug
	ninja -C $(ASAN_BUILD) -j $(JOBS)
	meson test -C $(ASAN_BUILD) --print-errorlogs --timeout-multiplier 4
	$(PYTHON) $(SHARED)/tools/astcompare.py --tpf $(ASAN_BUILD)/tools/tpf-analyze $(TORCH_DIR) $(STDLIB_DIR)

# ThreadSanitizer over whole trees at -j2: files analyzed in parallel share
# the modules they import (ModuleStore, ProjectFacts). Any report fails.
test-threads: deps
	test -f $(TSAN_BUILD)/build.ninja || meson setup $(TSAN_BUILD) -Db_sanitize=thread -Dallocator=system -Dbuildtype=debugoptimized
	ninja -C $(TSAN_BUILD) -j $(JOBS) tools/tpf-analyze
	for t in $(THREAD_TREES); do \
	  TSAN_OPTIONS=halt_on_error=1 $(TSAN_BUILD)/tools/tpf-analyze --isolated -j 2 --fail-on never \
	    --format json --target h100 $$t > /dev/null || exit 1; \
	done

# libFuzzer targets (clang), seeded from the fixtures and a corpus sample,
# each run for FUZZ_SECONDS; crashes land in $(FUZZ_BUILD)/crashes.
fuzz: deps
	test -f $(FUZZ_BUILD)/build.ninja || CXX=clang++ meson setup $(FUZZ_BUILD) -Dfuzz=true
	ninja -C $(FUZZ_BUILD) -j $(JOBS) $(addprefix test/fuzz/fuzz-,$(FUZZ_TARGETS))
	mkdir -p $(FUZZ_BUILD)/seeds $(FUZZ_BUILD)/crashes
	cp examples/*.py $(FUZZ_BUILD)/seeds/
	find test -name '*.py' -size -64k -exec cp {} $(FUZZ_BUILD)/seeds/ \; 2>/dev/null || true
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus-$$t; \
	  $(FUZZ_BUILD)/test/fuzz/fuzz-$$t $(FUZZ_BUILD)/corpus-$$t $(FUZZ_BUILD)/seeds \
	    -dict=test/fuzz/python.dict -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -artifact_prefix=$(FUZZ_BUILD)/crashes/$$t- -print_final_stats=1 || exit 1; \
	done
