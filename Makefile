# Thin wrapper over CMake presets. `make demo` and `make test` set up a fresh machine.
DEPS      := cmake ninja-build pkg-config python3 clang-14 libclang-rt-14-dev libmimalloc-dev \
             libxxhash-dev libcriterion-dev
BENCHDEPS := libjansson-dev libcjson-dev
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps bench-deps build demo test test-asan test-tsan fuzz fuzz-smoke bench format clean install

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
	$(call need,$(DEPS))

bench-deps: deps
	$(call need,$(BENCHDEPS))

build: deps
	cmake --preset default $(if $(CI),-DGROVE_WERROR=ON)
	cmake --build build -j $(JOBS)

demo: build
	./build/grove demo

test: build
	ctest --test-dir build --output-on-failure -j $(JOBS)

test-asan: deps
	cmake --preset asan $(if $(CI),-DGROVE_WERROR=ON)
	cmake --build build-asan -j $(JOBS)
	ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build-asan --output-on-failure -j $(JOBS)

# The thread tests (readers next to one writer) under ThreadSanitizer.
test-tsan: deps
	cmake --preset tsan $(if $(CI),-DGROVE_WERROR=ON)
	cmake --build build-tsan -j $(JOBS) --target test_threads
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --test-dir build-tsan --output-on-failure -L threads

fuzz: deps
	cmake --preset fuzz
	cmake --build build-fuzz -j $(JOBS)

bench: bench-deps
	cmake --preset default -DGROVE_BENCH=ON
	cmake --build build -j $(JOBS)
	./build/bench/grove-bench $(BENCH_ARGS)

install: build
	cmake --install build $(if $(PREFIX),--prefix $(PREFIX))

format:
	clang-format -i include/*.h lib/*.[ch] tools/*.c tests/*.[ch] fuzz/*.c bench/*.c

clean:
	rm -rf build build-asan build-fuzz build-tsan
