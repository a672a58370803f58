# The README's two commands. Both run scripts/setup first (installs what is missing, builds).
.PHONY: soak test test-asan bench clean

BUILD_DIR ?= build
OUT ?= out

soak:
	scripts/setup
	scripts/smoke

# Every test (Release build, warnings as errors), then the unit tests under ASan/UBSan. Each
# ctest run is followed by the skip policy (scripts/check-skips; CONTRIBUTING.md, "Tests").
test:
	scripts/setup
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j 2 --output-junit ctest-junit.xml
	scripts/check-skips $(BUILD_DIR)/ctest-junit.xml
	scripts/test-asan

test-asan:
	scripts/setup --no-build
	scripts/test-asan

bench:
	scripts/setup
	scripts/bench

clean:
	rm -rf $(BUILD_DIR) build-asan $(OUT)
