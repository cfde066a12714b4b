// SPDX-License-Identifier: GPL-2.0
/*
 * libkmod gives the same answers as modprobe/rmmod (modules.dep, options
 * from /etc/modprobe.d, soft dependencies) without running a shell, and
 * returns errno values we can turn into advice.
 */
#include <ctype.h>
#include <errno.h>
#include <libkmod.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "kernel.h"
#include "kmod.h"
#include "output.h"

/*
 * libkmod logs its own errors to stderr; we explain failures ourselves, so
 * its lines would only be noise unless someone asks for them.
 */
static void km_log(void *data, int priority, const char *file, int line,
		   const char *fn, const char *format, va_list args)
{
	(void)data;
	(void)priority;
	(void)file;
	(void)line;
	(void)fn;
	fputs("abpath: libkmod: ", stderr);
	vfprintf(stderr, format, args);
}

static int km_open(struct kmod_ctx **ctx, struct kmod_module **mod)
{
	int err;

	*ctx = kmod_new(NULL, NULL);
	if (!*ctx)
		return -ENOMEM;
	if (getenv("ABPATH_DEBUG")) {
		kmod_set_log_fn(*ctx, km_log, NULL);
		kmod_set_log_priority(*ctx, LOG_DEBUG);
	} else {
		kmod_set_log_priority(*ctx, LOG_EMERG);
	}
	err = kmod_module_new_from_name(*ctx, ABPATH_MODULE, mod);
	if (err < 0) {
		kmod_unref(*ctx);
		return err;
	}
	return 0;
}

static void km_close(struct kmod_ctx *ctx, struct kmod_module *mod)
{
	kmod_module_unref(mod);
	kmod_unref(ctx);
}

static void km_holders(struct kmod_module *mod, char *buf, size_t len)
{
	struct kmod_list *holders = kmod_module_get_holders(mod), *l;
	size_t used = 0;

	buf[0] = '\0';
	kmod_list_foreach(l, holders) {
		struct kmod_module *h = kmod_module_get_module(l);
		int n = snprintf(buf + used, len - used, "%s%s",
				 used ? "," : "", kmod_module_get_name(h));

		kmod_module_unref(h);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	kmod_module_unref_list(holders);
}

int km_info(struct km_info *info)
{
	struct kmod_module *mod;
	struct kmod_ctx *ctx;
	int err, state;

	memset(info, 0, sizeof(*info));
	info->state = "unknown";
	info->refcnt = -1;
	err = km_open(&ctx, &mod);
	if (err) {
		/* Without libkmod, sysfs still tells loaded from absent. */
		info->loaded = ctl_module_listed();
		info->state = info->loaded ? "live" : "absent";
		return err;
	}
	state = kmod_module_get_initstate(mod);
	switch (state) {
	case KMOD_MODULE_LIVE:
		info->state = "live";
		info->loaded = true;
		break;
	case KMOD_MODULE_COMING:
		info->state = "coming";
		info->loaded = true;
		break;
	case KMOD_MODULE_GOING:
		info->state = "going";
		break;
	case KMOD_MODULE_BUILTIN:
		info->state = "builtin";
		info->loaded = true;
		break;
	case -ENOENT:
		info->state = "absent";
		break;
	default:
		break;
	}
	if (info->loaded && state != KMOD_MODULE_BUILTIN) {
		info->refcnt = kmod_module_get_refcnt(mod);
		if (info->refcnt < 0)
			info->refcnt = -1;
		km_holders(mod, info->holders, sizeof(info->holders));
	}
	km_close(ctx, mod);
	return 0;
}

/*
 * The certificate DKMS signs modules with: mok_certificate in
 * /etc/dkms/framework.conf, else dkms's default since 3.0 (Debian 12 has
 * 3.0.10), which it generates on first use beside its key mok.key.
 */
static void dkms_mok_certificate(char *buf, size_t len)
{
	char line[512], *v, *end;
	FILE *f = fopen("/etc/dkms/framework.conf", "re");

	ctl_copy(buf, len, "/var/lib/dkms/mok.pub");
	while (f && fgets(line, sizeof(line), f)) {
		for (v = line; isspace((unsigned char)*v); v++)
			;
		if (strncmp(v, "mok_certificate=", 16))
			continue;
		v += 16;
		v += *v == '"' || *v == '\'';
		end = v + strcspn(v, "\"'\n ");
		*end = '\0';
		if (*v)
			ctl_copy(buf, len, v);
	}
	if (f)
		fclose(f);
}

/* Lockdown is on when the kernel names a level other than none. */
static bool locked_down(void)
{
	struct ctl_kernel k;

	ctl_kernel_probe(&k);
	return *k.lockdown && strcmp(k.lockdown, "none");
}

/*
 * A signature the kernel does not trust: Secure Boot (lockdown, or
 * module.sig_enforce) loads only modules signed by a key it knows, and
 * DKMS's own key is one only once it is enrolled as a Machine Owner Key.
 */
static int km_signature_error(struct kmod_module *mod, int err)
{
	char cert[256];

	dkms_mok_certificate(cert, sizeof(cert));
	abpath_error("the kernel rejected the signature of %s (%s): with "
		     "Secure Boot it loads only modules signed by a key it "
		     "trusts. Enroll the key DKMS signs with once: "
		     "'mokutil --import %s', reboot, choose 'Enroll MOK' in "
		     "the MOK manager and confirm with the password you "
		     "gave; then 'abpath load' again",
		     kmod_module_get_path(mod), strerror(-err), cert);
	return 1;
}

static int km_load_error(struct kmod_module *mod, int err)
{
	struct ctl_kernel k;

	switch (-err) {
	case EKEYREJECTED:
	case ENOKEY:
		return km_signature_error(mod, err);
	case EPERM:
	case EACCES:
		if (geteuid() != 0) {
			abpath_error("loading a module needs CAP_SYS_MODULE; "
				     "run as root");
			return 1;
		}
		/* Lockdown without sig_enforce refuses an unknown key so. */
		if (locked_down())
			return km_signature_error(mod, err);
		abpath_error("the kernel refused to load %s (%s); check "
			     "dmesg (kernel.modules_disabled, a security "
			     "module?)", kmod_module_get_path(mod),
			     strerror(-err));
		return 1;
	case ENOENT:
		ctl_kernel_probe(&k);
		if (k.hooks == TRI_NO && k.stock == TRI_NO) {
			abpath_error("the running kernel %s has no abpath hooks "
				     "(unknown symbols); boot a kernel built "
				     "with CONFIG_ABPATH_HOOKS=y "
				     "(" CTL_HOOK_PATCHES ")", k.release);
			return 1;
		}
		if (k.hooks == TRI_NO) {
			abpath_error("loading %s failed: unknown symbol; it "
				     "was built for another kernel or for the "
				     "patched backend: rebuild it for this "
				     "kernel ('dkms autoinstall -k %s' with the "
				     "abpath-dkms package, or 'make "
				     "dkms-install' from a clone) and check "
				     "dmesg", kmod_module_get_path(mod),
				     k.release);
			return 1;
		}
		abpath_error("loading %s failed: unknown symbol; check dmesg "
			     "and rebuild the module against this kernel",
			     kmod_module_get_path(mod));
		return 1;
	case ENOEXEC:
		abpath_error("%s has an invalid format for this kernel; "
			     "rebuild it against the running kernel",
			     kmod_module_get_path(mod));
		return 1;
	default:
		abpath_error("loading %s failed: %s; check dmesg",
			     kmod_module_get_path(mod), strerror(-err));
		return 1;
	}
}

int km_load(const char *mode)
{
	struct kmod_module *mod;
	struct ctl_kernel k;
	struct kmod_ctx *ctx;
	char opts[64] = "";
	int err, ret = 0;

	err = km_open(&ctx, &mod);
	if (err) {
		abpath_error("libkmod: %s", strerror(-err));
		return 1;
	}
	if (mode)
		snprintf(opts, sizeof(opts), "mode=%s", mode);

	/*
	 * A kernel that can take neither backend is the root cause whenever
	 * it is one: no abpath.ko could load on it.
	 */
	ctl_kernel_probe(&k);
	if (kmod_module_get_initstate(mod) < 0 && ctl_takes_neither(&k, "")) {
		km_close(ctx, mod);
		return 1;
	}
	/* Without a path in modules.dep there is nothing to insert. */
	if (!kmod_module_get_path(mod) &&
	    kmod_module_get_initstate(mod) < 0) {
		abpath_error("module %s not found for kernel %s; install it: "
			     "the Debian package abpath-dkms ('apt install "
			     "./abpath-dkms_*.deb'), or from a clone 'make "
			     "dkms-install' (both need linux-headers-%s)",
			     ABPATH_MODULE, k.release, k.release);
		km_close(ctx, mod);
		return 1;
	}
	err = kmod_module_probe_insert_module(mod, KMOD_PROBE_FAIL_ON_LOADED,
					      mode ? opts : NULL, NULL, NULL,
					      NULL);
	if (err == -EEXIST) {
		/* Same outcome as modprobe: the module is there. */
		if (mode)
			abpath_warn("module %s is already loaded; mode=%s not "
				    "applied, use 'abpath set all %s'",
				    ABPATH_MODULE, mode, mode);
	} else if (err > 0) {
		abpath_error("module %s is blacklisted; remove it from the "
			     "blacklist in /etc/modprobe.d", ABPATH_MODULE);
		ret = 1;
	} else if (err < 0) {
		ret = km_load_error(mod, err);
	}
	km_close(ctx, mod);
	return ret;
}

int km_unload(void)
{
	struct kmod_module *mod;
	struct kmod_ctx *ctx;
	struct km_info info;
	int err, ret = 1;

	if (km_info(&info) == 0 && !info.loaded) {
		abpath_error("module %s is not loaded; nothing to unload",
			     ABPATH_MODULE);
		return 1;
	}
	err = km_open(&ctx, &mod);
	if (err) {
		abpath_error("libkmod: %s", strerror(-err));
		return 1;
	}
	if (!strcmp(info.state, "builtin")) {
		abpath_error("%s is built into the kernel and cannot be "
			     "unloaded", ABPATH_MODULE);
		goto out;
	}
	/*
	 * Checking first names the users; the kernel alone would only say
	 * EBUSY/EAGAIN.
	 */
	if (info.refcnt > 0 || info.holders[0]) {
		abpath_error("module %s is in use (refcount %d%s%s); stop "
			     "what uses it and retry", ABPATH_MODULE,
			     info.refcnt, info.holders[0] ? ", used by " : "",
			     info.holders);
		goto out;
	}
	err = kmod_module_remove_module(mod, KMOD_REMOVE_NOWAIT);
	if (err == -EBUSY || err == -EAGAIN)
		abpath_error("module %s is in use (the kernel refused with "
			     "%s); stop what uses it and retry",
			     ABPATH_MODULE, strerror(-err));
	else if (err == -EPERM || err == -EACCES)
		abpath_error("unloading a module needs CAP_SYS_MODULE; "
			     "run as root");
	else if (err == -ENOENT)
		abpath_error("module %s is not loaded; nothing to unload",
			     ABPATH_MODULE);
	else if (err < 0)
		abpath_error("unloading %s failed: %s", ABPATH_MODULE,
			     strerror(-err));
	else
		ret = 0;
out:
	km_close(ctx, mod);
	return ret;
}
