# Innova: emulated kTLS RX-offload NIC. See README.md.
#   make demo   - build everything, boot the guest, show transfers over the NIC
#   make test   - host tests + guest suite and kernel TLS selftests on each
#                 kernel (KVERS, default 6.1, 6.12 and 6.12-tls13: 6.12 with
#                 kernel/patches/6.12); ends "N passed, N failed"
#   make test-debug - the guest suite on a KASAN/lockdep/kmemleak/failslab kernel
# Nothing here ever loads a module into the host kernel: kernel code only
# runs inside the QEMU guest.

SHELL := /bin/bash
ROOT := $(CURDIR)
BUILD := $(ROOT)/build
# KVER: a kernel ABI (6.1.0-57-amd64) or a Debian line (6.1, 6.12) that
# qemu-image/kver.sh resolves to the ABI its packages point at today.
# KVERS: the kernels make test runs on, one after the other: both lines
# and the patched-kernel lane (below) unless KVER names one.
# (Evaluated here, before KVER is resolved below.)
ifeq ($(origin KVERS),undefined)
KVERS := $(if $(KVER),$(KVER),6.1 6.12 6.12-tls13)
endif
export KVERS
override KVER := $(shell KVER=$(KVER) $(ROOT)/qemu-image/kver.sh)
# A patched-kernel lane (KVER=6.12-tls13, resolved to <6.12 ABI>-tls13):
# kernel/build-kernel.sh builds Debian's linux-source of the line with
# kernel/patches/<line>/series and kernel/<lane>-kernel.config, cached
# outside the checkout and linked at $(BUILD)/<lane>-kernel; the module
# builds against its obj/, the guest boots its bzImage with the stock
# kernel's rootfs (KABI, the ABI underneath) plus the lane's modules.
LANE := $(shell KVER=$(KVER) $(ROOT)/qemu-image/kver.sh --lane)
ifneq ($(LANE),)
KABI := $(KVER:%-$(LANE)=%)
LANE_DIR := $(BUILD)/$(LANE)-kernel
KDIR ?= $(LANE_DIR)/obj
else
# Installed headers, or (6.12, whose headers package would pull in a boot
# kernel) headers unpacked under build/: qemu-image/headers.sh.
KDIR ?= $(shell $(ROOT)/qemu-image/headers.sh $(KVER) $(BUILD))
endif
KROOT := $(BUILD)/kernel-$(KVER)/root
VMLINUZ := $(KROOT)/boot/vmlinuz-$(KVER)
BASE_CPIO := $(BUILD)/rootfs-$(KVER).cpio
STAGE := $(BUILD)/stage
KMOD := $(BUILD)/kmod
GUEST_TIMEOUT ?= 1500
export KVER

.PHONY: all deps module userspace image stage guest shell test demo check \
	fuzz bench bench-guest soak coverage report host-test test-debug fresh-check \
	clean install modules_install load insmod lane-kernel print-kdir

all: module userspace

deps:
	@$(ROOT)/qemu-image/deps.sh $(KVER)

# Kbuild writes objects next to the sources, so the module is built from a
# mirror of the sources under build/ to keep the tree clean.
module: $(if $(LANE),lane-kernel)
	@mkdir -p $(KMOD)
	@cp -pu Kbuild $(KMOD)/
	@rsync -a --delete module include $(KMOD)/ 2>/dev/null || \
		{ rm -rf $(KMOD)/module $(KMOD)/include; cp -a module include $(KMOD)/; }
	$(MAKE) -C $(KDIR) M=$(KMOD) modules
	@echo ">>> module: $(KMOD)/innova.ko"

userspace:
	$(MAKE) -C userspace BUILD=$(BUILD)

image: $(VMLINUZ) $(BASE_CPIO)

ifeq ($(LANE),)
$(VMLINUZ):
	@$(ROOT)/qemu-image/fetch-kernel.sh $(KVER) $(BUILD)/kernel-$(KVER)

$(BASE_CPIO): $(VMLINUZ) qemu-image/build-rootfs.sh qemu-image/guest-packages.txt
	@$(ROOT)/qemu-image/build-rootfs.sh $(KVER) $(KROOT) $@
else
# The lane: the stock kernel underneath first (its rootfs; its package's
# version must be the source's), then the patched build (cached: seconds),
# whose bzImage appears where the guest targets look for a kernel.
$(BUILD)/kernel-$(KABI)/root/boot/vmlinuz-$(KABI):
	@$(ROOT)/qemu-image/fetch-kernel.sh $(KABI) $(BUILD)/kernel-$(KABI)

$(BUILD)/rootfs-$(KABI).cpio: $(BUILD)/kernel-$(KABI)/root/boot/vmlinuz-$(KABI) \
		qemu-image/build-rootfs.sh qemu-image/guest-packages.txt
	@$(ROOT)/qemu-image/build-rootfs.sh $(KABI) $(BUILD)/kernel-$(KABI)/root $@

lane-kernel: $(BUILD)/kernel-$(KABI)/root/boot/vmlinuz-$(KABI)
	@$(ROOT)/kernel/build-kernel.sh $(KABI) $(LANE) $(ROOT)/kernel/$(LANE)-kernel.config \
		$(ROOT)/kernel/patches/$(shell echo $(KABI) | cut -d. -f1-2)/series $(LANE_DIR)
	@mkdir -p $(KROOT)/boot && ln -sfn ../../../$(LANE)-kernel/bzImage $(VMLINUZ)

$(VMLINUZ): lane-kernel ;

$(BASE_CPIO): $(BUILD)/rootfs-$(KABI).cpio lane-kernel
	@cat $< $(LANE_DIR)/modules.cpio > $@.tmp && mv $@.tmp $@
endif

# The tree the module builds against (tests/run.sh's style step asks).
print-kdir:
	@echo $(KDIR)

# What the guest sees as /innova: the module, userspace binaries, tests.
stage: all
	@rm -rf $(STAGE) && mkdir -p $(STAGE)/bin $(STAGE)/tests
	@cp $(KMOD)/innova.ko $(STAGE)/
	@cp $(BUILD)/userspace/innova-tls $(STAGE)/bin/
	@cp $(BUILD)/userspace/innova-inject $(STAGE)/bin/
	@cp -a tests/guest tests/faults $(STAGE)/tests/
	@cp -a tests/report $(STAGE)/tests/
	@cp -a userspace/*.sh $(STAGE)/bin/ 2>/dev/null || true

# $(call run-guest,OPTIONS): boot the guest under QEMU with $(STAGE) as
# /innova and run $$INNOVA_GUEST_CMD there. Each target sets that command
# as an exported target-specific variable: it reaches run-guest.sh through
# the environment, never through the recipe's shell quoting, so it may
# hold any quotes (make guest CMD="GUEST_TESTS='10-*' sh ...").
run-guest = $(ROOT)/qemu-image/run-guest.sh $(1) $(VMLINUZ) $(BASE_CPIO) \
	$(STAGE) "$$INNOVA_GUEST_CMD"

# Run your own command in the guest with the module loaded:
#   make guest CMD='uname -r; lsmod | grep innova'
CMD ?= uname -a
guest: export INNOVA_GUEST_CMD = modprobe innova || exit 1; $(CMD)
guest: image stage
	@$(call run-guest,--timeout $(GUEST_TIMEOUT))

shell: export INNOVA_GUEST_CMD =
shell: image stage
	@$(call run-guest,--shell)

host-test:
	$(MAKE) -C tests/host test BUILD=$(BUILD)

test: deps
	@BUILD=$(BUILD) $(ROOT)/tests/run.sh

# The guest suite on a KASAN + lockdep + kmemleak + failslab + UBSAN build
# of the same Debian kernel source, then allocation-failure runs (not part
# of make test: the kernel build takes tens of minutes once, then is cached).
test-debug: deps
	@$(ROOT)/tests/run-debug.sh

demo: export INNOVA_GUEST_CMD = sh /innova/tests/guest/demo.sh
demo: deps image stage
	@$(call run-guest,--timeout $(GUEST_TIMEOUT))

# Long guest soak (not part of make test): the fault, rekey and teardown
# tests with bigger transfers and 100 teardown rounds.
soak: export INNOVA_GUEST_CMD = GUEST_TESTS='4[1-6]*' BYTES=64M ROUNDS=100 \
	sh /innova/tests/guest/run-suite.sh
soak: deps image stage
	@$(call run-guest,--timeout 7200)

# Offload coverage curves (not part of make test): share of TLS bytes the
# NIC decrypts per resync mode and fault level, and flow-count scaling.
coverage: export INNOVA_GUEST_CMD = sh /innova/tests/guest/coverage.sh
coverage: deps image stage
	@$(call run-guest,--timeout 3600)

# make report: one guest run (tests/report/guest.sh and its sections), then
# on the host the data, gnuplot PNGs and index.md under $(BUILD)/report.
# REPORT_SECTIONS='10-* 20-*' runs some sections only; REPORT_* variables
# reach the guest. Not part of make test.
# EVAL=full: section 70-eval's whole grid (about two days; docs/evaluation.md).
REPORT_TIMEOUT ?= $(if $(filter full,$(EVAL)),259200,5400)
report: deps image stage
	@BUILD=$(BUILD) REPORT_TIMEOUT=$(REPORT_TIMEOUT) \
		$(if $(EVAL),REPORT_EVAL=$(EVAL)) \
		$(if $(filter full,$(EVAL)),REPORT_SECTION_TIMEOUT=$${REPORT_SECTION_TIMEOUT:-259200}) \
		$(ROOT)/tests/report/run.sh $(VMLINUZ) $(BASE_CPIO) $(STAGE)

# The kernel's own TLS selftests (tools/testing/selftests/net/tls.c from
# linux-source) across the NIC: veth baseline vs Innova, clean and with
# faults, in one guest run (tests/kselftest/). Also a step of make test.
.PHONY: kselftest
kselftest: deps image stage
	@BUILD=$(BUILD) $(ROOT)/tests/kselftest/run.sh

# The engine against the kernel's own gcm(aes) in the guest (module/bench.c:
# ns per byte and their ratio from one run, 16 KiB and 1 KiB records in
# 1448-byte frames), with the generic AES both use by default, then with
# AES-NI loaded; plus the NIC's memory per flow. Not part of make test.
BENCH_CASES := "records=64 size=16384 frame=1448" "records=256 size=1024 frame=1448"
bench-guest: export INNOVA_GUEST_CMD = modprobe innova || exit 1; \
	for pass in generic aesni; do \
	[ $$pass = aesni ] && { modprobe aesni_intel || exit 1; }; \
	for c in $(BENCH_CASES); do echo "== $$pass: $$c"; \
	echo "$$c" > /sys/kernel/debug/innova/bench && cat /sys/kernel/debug/innova/bench || exit 1; \
	done; done
bench-guest: deps image stage
	@$(call run-guest,--timeout $(GUEST_TIMEOUT))

# Fresh-machine rehearsal (issue 21, not part of make test): a clean
# Debian 12 root (debootstrap minbase + make, cached under build/fresh) with
# a clean clone of HEAD bind-mounted, running make demo, make host-test and
# one short guest test as a new user would; every package from deps.sh.
# FRESH_REF=<commit> rehearses another commit, FRESH_GUEST_TEST the test.
fresh-check:
	@FRESH_DIR=$(BUILD)/fresh $(if $(FRESH_REF),FRESH_REF=$(FRESH_REF)) \
		$(if $(FRESH_GUEST_TEST),FRESH_GUEST_TEST='$(FRESH_GUEST_TEST)') \
		$(ROOT)/qemu-image/fresh-check.sh

fuzz:
	$(MAKE) -C tests/host fuzz BUILD=$(BUILD)
	$(MAKE) -C tests/host adversary-long BUILD=$(BUILD)

bench:
	$(MAKE) -C tests/host bench BUILD=$(BUILD)

# Style gates: checkpatch --strict (from linux-source) and sparse (C=1).
check: module
	@$(ROOT)/tests/check-style.sh $(KDIR) $(KMOD)

clean:
	rm -rf $(BUILD)/kmod $(BUILD)/userspace $(BUILD)/host $(BUILD)/stage $(BUILD)/guest-out

# Loading anything into the build machine's own kernel is never done.
install modules_install load insmod:
	@echo "refusing '$@': Innova's module only ever runs inside the QEMU guest (make guest / make shell)" >&2
	@exit 1
