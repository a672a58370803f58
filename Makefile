# The README's commands. Each runs scripts/setup first (installs what is missing, configures,
# builds what the command needs). docs/testing.md describes the tiers.
.PHONY: soak test check test-asan bench package clean

BUILD_DIR ?= build
OUT ?= out
CTEST = ctest --test-dir $(BUILD_DIR) --output-on-failure -j 2

# The smoke campaign: builds only what a soak needs (tools, images, control mutants, workloads).
soak:
	scripts/setup --soak
	scripts/smoke

# Every test (Release build, warnings as errors), unit tier first so that it fails fast; then the
# host-only tests again under ASan/UBSan. Each ctest run is followed by the skip policy
# (scripts/check-skips; CONTRIBUTING.md, "Tests") and the 15 slowest tests (scripts/slowest).
test:
	scripts/setup
	rm -rf $(BUILD_DIR)/test-xml
	$(CTEST) -L '^unit$$' --output-junit ctest-unit.xml
	scripts/check-skips $(BUILD_DIR)/ctest-unit.xml
	$(CTEST) -LE '^unit$$' --output-junit ctest-junit.xml
	scripts/check-skips $(BUILD_DIR)/ctest-junit.xml $(BUILD_DIR)/test-xml
	scripts/slowest -n 15 $(BUILD_DIR)/ctest-unit.xml $(BUILD_DIR)/ctest-junit.xml
	scripts/test-asan

# The edit loop: build everything, run the unit tier only (host only, no images, no child
# processes of ours): a few minutes. `make test` stays the whole proof.
check:
	scripts/setup
	$(CTEST) -L '^unit$$' --output-junit ctest-unit.xml
	scripts/check-skips $(BUILD_DIR)/ctest-unit.xml
	scripts/slowest -n 10 $(BUILD_DIR)/ctest-unit.xml

test-asan:
	scripts/setup --no-build
	scripts/test-asan

bench:
	scripts/setup
	scripts/bench

# The Debian package (docs/install.md): build/package/ctte-lab_<version>_<arch>.deb.
package:
	scripts/setup --soak
	cd $(BUILD_DIR) && cpack

clean:
	rm -rf $(BUILD_DIR) build-asan $(OUT)
