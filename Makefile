# SPDX-License-Identifier: MIT
# Thin wrapper over CMake presets. `make demo` and `make test` set up a fresh Debian machine:
# each target installs (as root, with apt-get) the packages it needs, and only those.
BUILD_DEPS   := cmake ninja-build pkg-config gcc libc6-dev libmimalloc-dev libxxhash-dev
TEST_DEPS    := $(BUILD_DEPS) libcriterion-dev python3
SAN_DEPS     := $(TEST_DEPS) clang-14 libclang-rt-14-dev
BENCH_DEPS   := $(BUILD_DEPS) libjansson-dev libcjson-dev
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
WERROR       := $(if $(CI),-DGROVE_WERROR=ON)

.PHONY: all deps test-deps san-deps bench-deps build demo test test-asan test-package fuzz bench \
        format clean install

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

test-asan: san-deps
	cmake --preset asan $(WERROR)
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)

# Installs grove (static, then shared) to temporary prefixes and builds consumers against it
# through find_package, pkg-config and add_subdirectory (tests/package/check.sh).
test-package: deps
	JOBS=$(JOBS) tests/package/check.sh

fuzz: san-deps
	cmake --preset fuzz
	cmake --build build-fuzz -j $(JOBS)

bench: bench-deps
	cmake --preset default -DGROVE_BENCH=ON
	cmake --build build -j $(JOBS)
	./build/bench/grove-bench $(BENCH_ARGS)

install: build
	cmake --install build $(if $(PREFIX),--prefix $(PREFIX))

format:
	clang-format-14 -i include/*.h lib/*.[ch] tools/*.c tests/*.[ch] fuzz/*.c bench/*.c \
	  examples/*.c tests/package/*.c

clean:
	rm -rf build build-asan build-fuzz build-package
