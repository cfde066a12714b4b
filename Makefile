# abpath: make builds the module (against the test VM's kernel unless
# KDIR says otherwise), the CLI and the workloads. make check runs what CI
# runs, make check-full the same at full size; make demo boots the VM and
# shows abpath at work.

ABPATH_CACHE ?= /var/cache/abpath
VM_KDIR := $(ABPATH_CACHE)/build-6.12-default
KDIR ?= $(VM_KDIR)

VERSION := $(shell cat VERSION)
DKMS_SRC := /usr/src/abpath-$(VERSION)
DKMS_FILES := Kbuild VERSION dkms.conf module

.PHONY: all module userspace kernel cross-arm64 check check-full check-host check-vm demo overhead \
	fuzz \
	compat clean deb deb-arm64 rpm dkms-src dkms-install dkms-uninstall

all: module userspace

# The VM kernel is built on demand; a real machine passes KDIR or uses DKMS.
$(VM_KDIR)/Module.symvers:
	tests/vm/build-kernel

module: $(if $(filter $(VM_KDIR),$(KDIR)),$(VM_KDIR)/Module.symvers)
	module/build $(KDIR)

userspace:
	tests/bin/deps.sh build
	$(MAKE) -C userspace
	$(MAKE) -C userspace/workloads

kernel:
	tests/vm/build-kernel

# arm64, cross-compiled with Debian's gcc-aarch64-linux-gnu: what the
# hook patch touches in the patched 6.12 and abpath.ko against it, then
# the CLI, the workloads and the test programs, into build/arm64/.
cross-arm64:
	tests/vm/build-kernel --flavour arm64 --objects
	tests/bin/cross-userspace arm64

check:
	tests/bin/check

# The same stages at full size: the whole suite on the debug kernel and the
# 100,000-flip storm (docs/ci.md).
check-full:
	ABPATH_FULL=1 tests/bin/check

# The host suite's DKMS and hook-site tests read the patched 6.1 and 7.3
# trees where the cache holds them whole (make check-full builds them);
# where it holds only the objects their series touches (make check, CI)
# or nothing, those tests skip, as in make check: check-host builds no
# kernel for them.
ABPATH_OBJECTS_ONLY ?= $(strip $(foreach v,6.1 7.3,$(if $(wildcard $(ABPATH_CACHE)/build-$(v)-default/Module.symvers),,$(v))))

check-host: all
	tests/bin/deps.sh host
	ABPATH_OBJECTS_ONLY="$(ABPATH_OBJECTS_ONLY)" bats --formatter tap tests/host

check-vm:
	tests/vm/run

# Each fuzz harness of the CLI's readers for FUZZ_SECONDS (tests/bin/fuzz):
# CI gives each 10 s, make check-full 600.
FUZZ_SECONDS ?= 60
fuzz:
	tests/bin/deps.sh build
	tests/bin/deps.sh fuzz
	tests/bin/fuzz $(FUZZ_SECONDS)

demo:
	tests/bin/demo

# The module's own cost, one --icount boot (docs/benchmarks.md).
overhead:
	tests/bin/overhead

# README's compatibility matrix, from the last make check or check-full,
# and the preflight's verdict on each published config (no VM needed).
compat: userspace
	tests/tools/compat-configs --readme README.md
	tests/tools/compat-matrix build/check --readme README.md

# The Debian packages (debian/): abpath-dkms and abpath in build/deb/,
# checked by lintian. README's install block is what a user does with them.
deb:
	tests/package/build

# abpath_*_arm64.deb (and the same source and abpath-dkms) in
# build/deb-arm64/, cross-built as a Debian developer does, checked by
# lintian. A target of its own, as cross-arm64 is, not ARCH=arm64: make
# hands its command line's variables to every sub-make, and ARCH is the
# kernel build's own.
deb-arm64:
	tests/package/build --arch arm64

# The RPM packages (rpm/abpath.spec): abpath-dkms and abpath in build/rpm/,
# checked by rpmlint. Built with Debian's rpmbuild, they show the spec
# works; Fedora, RHEL and SUSE build their own from it (docs/design.md).
rpm:
	tests/package/build-rpm

# The real-machine route without packages: DKMS builds and installs abpath.ko for every
# installed kernel that carries CONFIG_ABPATH_HOOKS (README, "Installing").
dkms-src:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r $(DKMS_FILES) $(DKMS_SRC)/

dkms-install: dkms-src
	dkms add abpath/$(VERSION)
	dkms build abpath/$(VERSION)
	dkms install abpath/$(VERSION)

dkms-uninstall:
	dkms remove abpath/$(VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C userspace clean
	$(MAKE) -C userspace/workloads clean
	rm -rf build results
