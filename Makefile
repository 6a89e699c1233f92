# Kernel lab: build, boot and test the patched linux-source-6.12 in QEMU.
#   make check         every test (host checks, KUnit, in-guest tests); closes
#                      with "N passed, N failed"
#   make run           boot the patched kernel with the main job
# See README.md. All output goes to build/ (git-ignored).

S := scripts
RUN_JOB ?= status

.PHONY: check check-debug check-series run deps tree export-patches kernel-patched \
	kernel-baseline kernel-debug initramfs-patched initramfs-baseline \
	initramfs-debug boot-patched clean distclean

check:
	@$(S)/check.sh patched

check-debug:
	@$(S)/check.sh debug

# Every patch builds and boots on its own (incremental builds, ~2 min each).
check-series: tree kernel-patched initramfs-patched
	@$(S)/check-series.sh

run: deps tree kernel-patched initramfs-patched
	@$(S)/boot.sh --variant patched --job $(RUN_JOB)
	@cat build/logs/patched-$(RUN_JOB).result

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

export-patches:
	@$(S)/tree.sh --export

kernel-%: tree
	@$(S)/build-kernel.sh $*

initramfs-%:
	@$(S)/initramfs.sh $*

clean:
	rm -rf build/obj build/logs build/initramfs build/results

distclean: clean
	rm -rf build/src
