# The README's two commands. Both run scripts/setup first (installs what is missing, builds).
.PHONY: soak test bench clean

BUILD_DIR ?= build
OUT ?= out

soak:
	scripts/setup
	scripts/smoke

test:
	scripts/setup
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j 2 --timeout 900

bench:
	scripts/setup
	scripts/bench

clean:
	rm -rf $(BUILD_DIR) $(OUT)
