// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/abpath/: the mode of every path, and of all at once.
 *
 *   mode            legacy | optimized | mixed; writing sets all four
 *   version
 *   backend         patched | stock: how the paths are attached
 *   resolution      exports | livepatch | kallsyms: how the backend
 *                   reaches what it uses of the kernel (module/ksym.h)
 *   reset           write 1 to zero every counter and histogram
 *   <path>/mode     "legacy [optimized]", the active one in brackets
 *   <path>/site     where the backend attached the path, or why it could
 *                   not ("unavailable: ...")
 *
 * A mode write is exactly "legacy" or "optimized", with at most one
 * trailing newline; anything else is -EINVAL and changes nothing.  Legacy
 * on a path the backend could not attach is -EOPNOTSUPP, for that path
 * and for the write of all four alike.  reset is here and not only in
 * debugfs: lockdown (Secure Boot) refuses every debugfs write.
 */
#include <linux/kobject.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "abpath.h"
#include "mode.h"
#include "stats.h"
#include "sysfs.h"

static struct kobject *abpath_kobj;

static int abpath_parse_mode(const char *buf, size_t count)
{
	/* An embedded NUL would make "legacy\0junk" look like "legacy". */
	if (strnlen(buf, count) != count)
		return -EINVAL;
	return sysfs_match_string(abpath_mode_names, buf);
}

static struct abpath_path *abpath_path_of(struct kobject *kobj)
{
	struct abpath_path *p;

	abpath_for_each_path(p)
		if (p->kobj == kobj)
			return p;
	return NULL;
}

static ssize_t path_mode_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct abpath_path *p = abpath_path_of(kobj);

	if (!p)
		return -ENODEV;
	return sysfs_emit(buf, abpath_mode_now(p) == ABPATH_LEGACY ?
			  "[legacy] optimized\n" : "legacy [optimized]\n");
}

static ssize_t path_mode_store(struct kobject *kobj,
			       struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	struct abpath_path *p = abpath_path_of(kobj);
	int mode;

	if (!p)
		return -ENODEV;
	mode = abpath_parse_mode(buf, count);
	if (mode < 0)
		return mode;
	return abpath_set_mode(p, mode) ?: count;
}

static ssize_t path_site_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct abpath_path *p = abpath_path_of(kobj);

	if (!p)
		return -ENODEV;
	if (p->unavailable)
		return sysfs_emit(buf, "unavailable: %s\n", p->unavailable);
	return sysfs_emit(buf, "%s\n", abpath_backend_site(p));
}

static struct kobj_attribute path_mode_attr =
	__ATTR(mode, 0644, path_mode_show, path_mode_store);
static struct kobj_attribute path_site_attr =
	__ATTR(site, 0444, path_site_show, NULL);

static struct attribute *path_attrs[] = {
	&path_mode_attr.attr,
	&path_site_attr.attr,
	NULL,
};

static const struct attribute_group path_group = {
	.attrs = path_attrs,
};

static ssize_t mode_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	unsigned int seen = 0;
	struct abpath_path *p;

	abpath_for_each_path(p)
		seen |= BIT(abpath_mode_now(p));
	if (seen == BIT(ABPATH_LEGACY))
		return sysfs_emit(buf, "legacy\n");
	if (seen == BIT(ABPATH_OPTIMIZED))
		return sysfs_emit(buf, "optimized\n");
	return sysfs_emit(buf, "mixed\n");
}

static ssize_t mode_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	int mode;

	mode = abpath_parse_mode(buf, count);
	if (mode < 0)
		return mode;
	return abpath_set_all_modes(mode) ?: count;
}

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", ABPATH_VERSION);
}

static ssize_t backend_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", abpath_backend_name);
}

static ssize_t resolution_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", abpath_backend_resolution);
}

/*
 * Exactly "1", with at most one trailing newline, as debugfs's reset: a
 * reset cannot be undone, so nothing else may trigger one.
 */
static ssize_t reset_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	if (strnlen(buf, count) != count || !sysfs_streq(buf, "1"))
		return -EINVAL;
	abpath_stats_reset();
	return count;
}

static struct kobj_attribute mode_attr = __ATTR_RW(mode);
static struct kobj_attribute version_attr = __ATTR_RO(version);
static struct kobj_attribute backend_attr = __ATTR_RO(backend);
static struct kobj_attribute resolution_attr = __ATTR_RO(resolution);
static struct kobj_attribute reset_attr = __ATTR_WO(reset);

static struct attribute *abpath_attrs[] = {
	&mode_attr.attr,
	&version_attr.attr,
	&backend_attr.attr,
	&resolution_attr.attr,
	&reset_attr.attr,
	NULL,
};

static const struct attribute_group abpath_group = {
	.attrs = abpath_attrs,
};

/*
 * kobject_del() first: it removes the directory and waits for show and
 * store calls in flight, now, whoever holds the last reference; a bare
 * kobject_put() would leave both to that final put, which could come
 * after this module's text is gone.
 */
static void abpath_sysfs_put(struct kobject *kobj)
{
	if (!kobj)
		return;
	kobject_del(kobj);
	kobject_put(kobj);
}

static void abpath_sysfs_put_paths(void)
{
	struct abpath_path *p;

	abpath_for_each_path(p) {
		abpath_sysfs_put(p->kobj);
		p->kobj = NULL;
	}
}

int abpath_sysfs_init(void)
{
	struct abpath_path *p;
	int ret;

	abpath_kobj = kobject_create_and_add("abpath", kernel_kobj);
	if (!abpath_kobj)
		return -ENOMEM;

	ret = sysfs_create_group(abpath_kobj, &abpath_group);
	if (ret)
		goto err_put_root;

	abpath_for_each_path(p) {
		p->kobj = kobject_create_and_add(p->name, abpath_kobj);
		if (!p->kobj) {
			ret = -ENOMEM;
			goto err_put_paths;
		}
		ret = sysfs_create_group(p->kobj, &path_group);
		if (ret)
			goto err_put_paths;
	}
	return 0;

err_put_paths:
	abpath_sysfs_put_paths();
	sysfs_remove_group(abpath_kobj, &abpath_group);
err_put_root:
	abpath_sysfs_put(abpath_kobj);
	return ret;
}

void abpath_sysfs_exit(void)
{
	abpath_sysfs_put_paths();
	sysfs_remove_group(abpath_kobj, &abpath_group);
	abpath_sysfs_put(abpath_kobj);
}
