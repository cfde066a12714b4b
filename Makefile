# abpath: make builds the module (against the test VM's kernel unless
# KDIR says otherwise), the CLI and the workloads. make check runs what CI
# runs, make check-full the same at full size; make demo boots the VM and
# shows abpath at work.

ABPATH_CACHE ?= /var/cache/abpath
VM_KDIR := $(ABPATH_CACHE)/build-6.12-default
KDIR ?= $(VM_KDIR)

VERSION := $(shell cat VERSION)
DKMS_SRC := /usr/src/abpath-$(VERSION)
# The one list of what DKMS builds the module from: make dkms-src installs
# it into DKMS_SRC, and debian/rules, rpm/abpath.spec and tests/bin/dkms-build
# call make dkms-src, so a new file in module/ ships everywhere at once.
DKMS_DATA := Kbuild VERSION dkms.conf
DKMS_MODULE := $(wildcard module/*.c module/*.h module/*.kbuild) module/klp.symvers
DKMS_SCRIPTS := module/build module/klp-convert module/tables

.PHONY: all module userspace kernel cross-arm64 check check-full check-host check-vm demo overhead \
	asan check-host-asan fuzz \
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

# The CLI and the workloads built with ASan and UBSan, into a copy of
# userspace/ in build/asan/ (with the headers of module/ it includes): the
# host suite runs against them instead of the plain build, which stays
# userspace/'s, the one the VM's initramfs takes (docs/ci.md). Each copy
# has a GNUmakefile that pins the compiler and flags, so that a plain make
# in it (a host test's) builds the same. clang, not gcc: gcc's UBSan
# writes its report to stderr whatever log_path says, and a test that
# discards a command's stderr would not see it. clang wants every field
# of a positional initializer, which gcc's -Werror build does not.
ASAN_DIR := build/asan
SAN_CC := clang-14
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
asan:
	tests/bin/deps.sh build
	tests/bin/deps.sh fuzz
	mkdir -p $(ASAN_DIR)/userspace/workloads $(ASAN_DIR)/module
	cp -pu VERSION $(ASAN_DIR)/
	cp -pu module/*.h $(ASAN_DIR)/module/
	cd userspace && find . -name 'fuzz*' -prune -o \( -name '*.[ch]' -o \
		-name Makefile -o -name "abpath*.1" -o -name abpath.bash-completion \) \
		-print | xargs cp -pu --parents -t $(CURDIR)/$(ASAN_DIR)/userspace
	for d in userspace userspace/workloads; do \
		printf '%s\n' '# make asan: this copy builds with ASan and UBSan.' \
			'CC := $(SAN_CC)' 'CFLAGS := $(SAN_FLAGS)' 'include Makefile' \
			'override CFLAGS += -Wno-missing-field-initializers' \
			>$(ASAN_DIR)/$$d/GNUmakefile; \
	done
	$(MAKE) -C $(ASAN_DIR)/userspace
	$(MAKE) -C $(ASAN_DIR)/userspace/workloads

# The host suite against build/asan/: a sanitizer's report fails the test
# that ran it (tests/suite/last-run.bash).
check-host-asan: all asan
	tests/bin/deps.sh host
	ABPATH_SANITIZED=1 ABPATH_BIN=$(CURDIR)/$(ASAN_DIR)/userspace/abpath \
	ABPATH_WL_DIR=$(CURDIR)/$(ASAN_DIR)/userspace/workloads \
	ABPATH_OBJECTS_ONLY="$(ABPATH_OBJECTS_ONLY)" bats --formatter tap tests/host

# Each fuzz harness of the CLI's readers for FUZZ_SECONDS (tests/bin/fuzz):
# CI gives each 9 s, make check-full 600.
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

# docs/matrix.md's compatibility matrix, from the last make check or check-full,
# and the preflight's verdict on each published config (no VM needed).
compat: userspace
	tests/tools/compat-configs --doc docs/matrix.md
	tests/tools/compat-matrix build/check --doc docs/matrix.md

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
# installed kernel that carries CONFIG_ABPATH_HOOKS (docs/install.md).
dkms-src:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/module
	install -m 0644 $(DKMS_DATA) $(DKMS_SRC)/
	install -m 0644 $(DKMS_MODULE) $(DKMS_SRC)/module/
	install -m 0755 $(DKMS_SCRIPTS) $(DKMS_SRC)/module/

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
