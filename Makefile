# Kernel lab: build, boot and test the patched linux-source-6.12 in QEMU.
#   make check         every test (host checks, KUnit, in-guest tests); closes
#                      with "N passed, N failed"
#   make run           the paired benchmark, short: 3 saved states per kernel,
#                      the main configurations, table with intervals + plots
#                      (bench/README.md)
#   make bench         the paired benchmark, full: 10 states, every configuration,
#                      the stock-knob frontier; then the run-tcp, run-net,
#                      run-stressng and run-thp scenarios (several hours)
#   make run-tcp       the paired benchmark with the kernel's own order-3 user:
#                      iperf3 over loopback TCP (page-frag refills), 6 states
#   make run-net       the same user on the RX side: the host's iperf3 into the
#                      guest through virtio-net, 4 states, one guest at a time
#   make run-stressng  the TCP demand with stress-ng as the fragmenter instead
#                      of the lab's own, 4 states
#   make run-thp       the RX ring beside a THP user (MADV_HUGEPAGE faults with
#                      direct compaction) on THP kernels (2 MiB pageblocks,
#                      kconfig/thp.config), 6 states; then the same with
#                      min_free_kbytes at its value without THP
#   make job RUN_JOB=x boot the patched kernel with one guest job
# See README.md. All output goes to build/ (git-ignored).

S := scripts
RUN_JOB ?= status

.PHONY: check check-debug check-series run run-tcp run-net run-stressng run-thp bench job deps tree \
	export-patches kernel-patched kernel-baseline kernel-debug kernel-patched-thp \
	kernel-baseline-thp initramfs-patched initramfs-baseline initramfs-debug \
	initramfs-patched-thp initramfs-baseline-thp boot-patched clean clean-states distclean

check:
	@$(S)/check.sh patched

check-debug:
	@$(S)/check.sh debug

# Every patch builds and boots on its own (incremental builds: under a minute
# each, 7-14 min for a patch that changes a widely included header).
check-series: tree kernel-patched initramfs-patched
	@$(S)/check-series.sh

run: deps tree kernel-patched kernel-baseline initramfs-patched initramfs-baseline
	@bench/run.sh -s run -n 3

run-tcp: deps tree kernel-patched kernel-baseline initramfs-patched initramfs-baseline
	@bench/run.sh -s tcp -n 6

run-net: deps tree kernel-patched kernel-baseline initramfs-patched initramfs-baseline
	@bench/run.sh -s net -n 4 -j 1

run-stressng: deps tree kernel-patched kernel-baseline initramfs-patched initramfs-baseline
	@bench/run.sh -s stressng -n 4

run-thp: deps tree kernel-patched-thp kernel-baseline-thp initramfs-patched-thp initramfs-baseline-thp
	@bench/run.sh -s thp -n 6
	@bench/run.sh -s thp-lowmin -n 6

bench: deps tree kernel-patched kernel-baseline initramfs-patched initramfs-baseline \
		kernel-patched-thp kernel-baseline-thp initramfs-patched-thp initramfs-baseline-thp
	@bench/run.sh -s bench -n 10 -F
	@bench/run.sh -s tcp -n 6
	@bench/run.sh -s net -n 4 -j 1
	@bench/run.sh -s stressng -n 4
	@bench/run.sh -s thp -n 6
	@bench/run.sh -s thp-lowmin -n 6

job: deps tree kernel-patched initramfs-patched
	@$(S)/boot.sh --variant patched --job $(RUN_JOB)
	@cat build/logs/patched-$(RUN_JOB).result

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

export-patches:
	@$(S)/tree.sh --export

# Static pattern rules: make looks for no implicit rule for a .PHONY target,
# so plain `kernel-%:` rules were never run for them.
kernel-patched kernel-baseline kernel-debug kernel-patched-thp kernel-baseline-thp: kernel-%: tree
	@$(S)/build-kernel.sh $*

initramfs-patched initramfs-baseline initramfs-debug initramfs-patched-thp initramfs-baseline-thp: initramfs-%:
	@$(S)/initramfs.sh $*

clean:
	rm -rf build/obj build/logs build/initramfs build/results

# Saved benchmark states: about 750 MB each, kept per kernel, initramfs and
# clock (build/states/by-guest/<variant>-<hash>), so every rebuild leaves a
# set behind; a day of benchmarking filled 70 GB.
clean-states:
	rm -rf build/states

distclean: clean clean-states
	rm -rf build/src
