# The fleet harness's shared part: the hosts, their disk images, and the
# QEMU that boots one. Sourced, not run.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"

FLEET_DIR=$ABPATH_CACHE/fleet
# What the running fleet is: its inventory, QEMU's pid files, the
# disks' overlays, and where its logs go. One fleet per clone. (Not
# build/fleet, where ansible/'s bench puts its results by default.)
FLEET_STATE=$ABPATH_TOP/build/fleet-vms
FLEET_KEY=$FLEET_DIR/id_ed25519
FLEET_HOSTS="bookworm-6.1 bookworm-6.12 trixie-6.12"

# fleet_stock HOST: the Debian kernel by suite (lib.sh's stock_spec)
# that HOST runs; inventory names say the release and the kernel series.
fleet_stock() {
	case $1 in
	bookworm-6.1) echo stock-bookworm ;;
	bookworm-6.12) echo stock-bookworm-6.12 ;;
	trixie-6.12) echo stock-trixie ;;
	*) die "no fleet host '$1': there are ${FLEET_HOSTS// /, }" ;;
	esac
}

# What a fleet's base image holds besides the kernel and its headers: a
# machine that boots (systemd, udev, ifupdown, an initramfs that mounts
# a virtio disk), that Ansible manages (sshd, python3, and python3-apt
# for its apt module), and that builds modules (DKMS and its compiler).
# A real fleet's hosts fetch abpath's dependencies from their archive;
# these guests reach none, so the image already has them: the shared
# libraries the command links (libjansson, libkmod, zlib) and what
# abpath-dkms depends on (binutils, python3, DKMS), with openssl for
# DKMS's signing key and xz for the modules it compresses as Debian's are.
FLEET_PKGS="systemd-sysv,udev,ifupdown,iproute2,openssh-server,python3,python3-apt,\
initramfs-tools,e2fsprogs,kmod,procps,dkms,gcc,make,libc6-dev,binutils,openssl,\
xz-utils,libjansson4,libkmod2,zlib1g"

# fleet_key: the key pair the controller logs in with, made once.
fleet_key() {
	mkdir -p "$FLEET_DIR"
	[ -s "$FLEET_KEY" ] && [ -s "$FLEET_KEY.pub" ] && return 0
	need_pkgs openssh-client
	rm -f "$FLEET_KEY" "$FLEET_KEY.pub"
	ssh-keygen -q -t ed25519 -N '' -C abpath-fleet -f "$FLEET_KEY" ||
		die "ssh-keygen failed"
}

# fleet_customize ROOT HOST: a made root into a fleet host: its disk,
# name, network (QEMU's user network: the guest is 10.0.2.15, static,
# so no DHCP client waits at boot) and the controller's key for root.
# The timers that would reach for an archive are masked.
fleet_customize() {
	local r=$1 host=$2 u
	echo '/dev/vda / ext4 defaults,errors=remount-ro 0 1' >"$r/etc/fstab"
	echo "$host" >"$r/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$host" >"$r/etc/hosts"
	cat >"$r/etc/network/interfaces" <<-'EOF'
		auto lo
		iface lo inet loopback

		auto eth0
		iface eth0 inet static
		    address 10.0.2.15/24
		    gateway 10.0.2.2
	EOF
	install -d -m 0700 "$r/root/.ssh"
	install -m 0600 "$FLEET_KEY.pub" "$r/root/.ssh/authorized_keys"
	for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
		fstrim.timer dpkg-db-backup.timer; do
		ln -sf /dev/null "$r/etc/systemd/system/$u"
	done
	# A host's own id, as a provisioned machine has: an empty one would
	# make every boot systemd's first, whose firstboot may prompt.
	tr -d - </proc/sys/kernel/random/uuid >"$r/etc/machine-id"
}

# fleet_recipe HOST KVER: what HOST's image is made of, as one line; the
# image is rebuilt when it changes.
fleet_recipe() {
	{
		echo "$1 $2"
		echo "$FLEET_PKGS"
		declare -f fleet_customize fleet_make_image
		cat "$FLEET_KEY.pub"
	} | sha256sum | cut -c1-16
}

# fleet_image HOST: HOST's disk image, made when missing or when its
# recipe changed; prints its path without the suffix: PREFIX.img (ext4,
# the whole disk), PREFIX.vmlinuz and PREFIX.initrd (the image's own
# /boot: Debian's signed kernel and the initramfs its initramfs-tools
# made), PREFIX.kver.
fleet_image() {
	local host=$1 stock spec rel kver recipe img
	stock=$(fleet_stock "$host") || exit
	spec=$(stock_spec "$stock") || exit
	read -r rel _ <<<"$spec"
	kver=$(stock_resolve "$stock") || exit
	fleet_key
	recipe=$(fleet_recipe "$host" "$kver")
	img=$FLEET_DIR/$host
	if [ "$(cat "$img.recipe" 2>/dev/null)" != "$recipe" ]; then
		(
			flock 9
			[ "$(cat "$img.recipe" 2>/dev/null)" = "$recipe" ] && exit 0
			fleet_make_image "$host" "$rel" "$kver" "$img" || exit
			echo "$recipe" >"$img.recipe"
		) 9>"$img.lock" || exit
	fi
	echo "$img"
}

# fleet_make_image HOST RELEASE KVER PREFIX: a root of RELEASE with the
# base packages, KVER's signed image and headers (make_root: mmdebstrap,
# whose own policy keeps sshd from starting on the host while it
# installs), customized, then written into an ext4 image with
# mkfs.ext4 -d (no loop mount). The root goes once the image is made.
fleet_make_image() {
	local host=$1 rel=$2 kver=$3 img=$4 r t0 size
	t0=$(date +%s)
	r=$FLEET_DIR/root-$host
	rm -rf "$r" "$r.tmp" "$img".{img,vmlinuz,initrd,kver,recipe}
	need_pkgs e2fsprogs
	make_root "$rel" "$r" "the fleet host $host ($kver)" \
		"$FLEET_PKGS,linux-image-$kver,linux-headers-$kver" >/dev/null || exit
	[ -s "$r/boot/vmlinuz-$kver" ] && [ -s "$r/boot/initrd.img-$kver" ] ||
		die "the $host root has no /boot/vmlinuz-$kver or /boot/initrd.img-$kver (did initramfs-tools run?)"
	fleet_customize "$r" "$host"
	# Room for the packages, DKMS's build and its logs.
	size=$(($(du -sm "$r" | cut -f1) * 5 / 4 + 1024))
	stage "the $host image: ${size} MiB ext4 from $r"
	rm -f "$img.img.tmp"
	mkfs.ext4 -q -F -L "$host" -d "$r" "$img.img.tmp" "${size}M" ||
		die "mkfs.ext4 -d $r failed"
	cp "$r/boot/vmlinuz-$kver" "$img.vmlinuz"
	cp "$r/boot/initrd.img-$kver" "$img.initrd"
	echo "$kver" >"$img.kver"
	mv "$img.img.tmp" "$img.img"
	rm -rf "$r"
	info "$host image made in $(($(date +%s) - t0))s"
}

fleet_ssh_opts=(-o BatchMode=yes -o StrictHostKeyChecking=no
	-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=10)

# fleet_ssh HOST CMD...: CMD as root on HOST of the running fleet.
fleet_ssh() {
	local host=$1
	shift
	ssh "${fleet_ssh_opts[@]}" -i "$FLEET_KEY" -p "$(cat "$FLEET_STATE/$host.port")" \
		root@127.0.0.1 "$@"
}

# fleet_alive HOST: HOST's QEMU is running.
fleet_alive() {
	local pid
	pid=$(cat "$FLEET_STATE/$1.pid" 2>/dev/null) && [ -n "$pid" ] &&
		kill -0 "$pid" 2>/dev/null
}

# fleet_free_port: a TCP port on 127.0.0.1 nothing listens on, from
# ABPATH_FLEET_PORT (default 10022) up, none another host of this fleet
# was given.
fleet_free_port() {
	local p=${ABPATH_FLEET_PORT:-10022}
	while ss -Htln "sport = :$p" | grep -q . ||
		grep -qsx "$p" "$FLEET_STATE"/*.port; do
		p=$((p + 1))
	done
	echo "$p"
}

# fleet_boot HOST LOGDIR [APPEND]: starts HOST's VM in the background on
# its overlay (made when missing, so a second boot keeps the disk), its
# console in LOGDIR/console.log (console-N.log for the Nth boot).
#
# One vCPU each: three guests share the machine's two cores, and a
# single vCPU thread cannot run a stale int3 (tests/vm/stale-int3/,
# docs/ci.md): that takes a second vCPU running a translation of code the
# first has just patched. So the fleet's images are as Debian ships
# them, without the test VM's tcg_int3.ko. restrict=on: the guest
# reaches nothing, the host's ssh port forward is its only way in.
fleet_boot() {
	local host=$1 logs=$2 append=${3:-} img port n=1 console
	img=$FLEET_DIR/$host
	mkdir -p "$FLEET_STATE" "$logs"
	# A second boot keeps its disk, and the image under it.
	if [ ! -f "$FLEET_STATE/$host.qcow2" ]; then
		img=$(fleet_image "$host") || exit
		qemu-img create -q -f qcow2 -F raw -b "$img.img" "$FLEET_STATE/$host.qcow2" ||
			die "cannot make an overlay of $img.img"
	fi
	port=$(cat "$FLEET_STATE/$host.port" 2>/dev/null || fleet_free_port)
	echo "$port" >"$FLEET_STATE/$host.port"
	console=$logs/console.log
	while [ -e "$console" ]; do
		n=$((n + 1))
		console=$logs/console-$n.log
	done
	echo "$console" >"$FLEET_STATE/$host.console"
	rm -f "$FLEET_STATE/$host.pid"
	qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 1 \
		-m "${ABPATH_FLEET_MEM:-1024}" -nodefaults -display none \
		-kernel "$img.vmlinuz" -initrd "$img.initrd" \
		-append "console=ttyS0 root=/dev/vda rw net.ifnames=0 panic=-1${append:+ $append}" \
		-drive "file=$FLEET_STATE/$host.qcow2,if=virtio,format=qcow2" \
		-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:22" \
		-device virtio-net-pci,netdev=n0 -device virtio-rng-pci \
		-serial "file:$console" -no-reboot \
		-daemonize -pidfile "$FLEET_STATE/$host.pid" 2>"$logs/qemu.log" ||
		die "QEMU did not start $host ($(cat "$logs/qemu.log"))"
	date +%s >"$FLEET_STATE/$host.booted"
	info "$host: $(cat "$img.kver"), ssh on 127.0.0.1:$port, console $console"
}

# fleet_wait HOST TIMEOUT: waits until HOST answers ssh; prints the
# seconds since its boot. A VM that died or never answered leaves its
# console's tail on standard error.
fleet_wait() {
	local host=$1 timeout=$2 t0
	t0=$(cat "$FLEET_STATE/$host.booted")
	while ! fleet_ssh "$host" true 2>/dev/null; do
		if ! fleet_alive "$host"; then
			tail -20 "$(cat "$FLEET_STATE/$host.console")" >&2
			info "$host's QEMU exited before ssh answered"
			return 1
		fi
		if [ $(($(date +%s) - t0)) -ge "$timeout" ]; then
			tail -20 "$(cat "$FLEET_STATE/$host.console")" >&2
			info "$host did not answer ssh within ${timeout}s"
			return 1
		fi
		sleep 2
	done
	echo $(($(date +%s) - t0))
}

# fleet_stop HOST: ends HOST's QEMU (TERM, then KILL after 10 s); the
# overlay stays for a next boot.
fleet_stop() {
	local host=$1 pid i
	pid=$(cat "$FLEET_STATE/$host.pid" 2>/dev/null) || return 0
	rm -f "$FLEET_STATE/$host.pid"
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 20); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.5
	done
	kill -KILL "$pid" 2>/dev/null || true
}

# fleet_inventory HOST...: the Ansible inventory of the running fleet
# (YAML: ansible/'s list variables can join it as a second inventory).
fleet_inventory() {
	local h
	echo "# abpath's test fleet (tests/fleet/up): QEMU guests on 127.0.0.1"
	echo "all:"
	echo "  vars:"
	echo "    ansible_user: root"
	echo "    ansible_ssh_private_key_file: $FLEET_KEY"
	# Every image has its own host keys, and a port is reused by the next
	# fleet: nothing to remember about them.
	echo "    ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
	echo "  hosts:"
	for h in "$@"; do
		echo "    $h:"
		echo "      ansible_host: 127.0.0.1"
		echo "      ansible_port: $(cat "$FLEET_STATE/$h.port")"
	done
}
