# abpath: make builds the module (against the test VM's kernel unless
# KDIR says otherwise), the CLI and the workloads. make check runs the host
# tests and the VM suite; make demo boots the VM and shows abpath at work.

ABPATH_CACHE ?= /var/cache/abpath
VM_KDIR := $(ABPATH_CACHE)/build-6.12-default
KDIR ?= $(VM_KDIR)

.PHONY: all module userspace kernel check check-host check-vm demo clean

all: module userspace

# The VM kernel is built on demand; a real machine passes KDIR or uses DKMS.
$(VM_KDIR)/Module.symvers:
	tests/vm/build-kernel

module: $(if $(filter $(VM_KDIR),$(KDIR)),$(VM_KDIR)/Module.symvers)
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	tests/deps.sh build
	$(MAKE) -C userspace
	$(MAKE) -C userspace/workloads

kernel:
	tests/vm/build-kernel

check:
	tests/check

check-host: userspace
	tests/deps.sh host
	bats --formatter tap tests/host

check-vm:
	tests/vm/run

demo:
	tests/demo

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	$(MAKE) -C userspace clean
	$(MAKE) -C userspace/workloads clean
	rm -rf build results
