// SPDX-License-Identifier: GPL-2.0
/*
 * Where and when a bench ran, kept with its result (its "provenance"):
 * abpath's version, the kernel and its build, the backend and each
 * legacy arm's site, the module's parameters, the CPUs, their governor
 * and the clocksource, the host and the time; and the lines the reports
 * make of it.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "../control.h"

static int not_dot(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/*
 * {name: value} of every parameter the loaded module has, or NULL; in
 * name order (scandir's alphasort), for a stable result.
 */
static json_t *module_parameters(void)
{
	char dir[4096], val[512];
	struct dirent **names;
	json_t *params;
	int n;

	ctl_sys_path(dir, sizeof(dir), "module/abpath/parameters");
	n = scandir(dir, &names, not_dot, alphasort);
	if (n < 0)
		return NULL;
	params = json_object();
	for (int i = 0; i < n; i++) {
		if (params && !ctl_param(names[i]->d_name, val, sizeof(val)))
			json_object_set_new(params, names[i]->d_name,
					    json_string(val));
		free(names[i]);
	}
	free(names);
	return params;
}

/* The first "model name" of /proc/cpuinfo, or NULL. */
static json_t *cpu_model(void)
{
	char file[4096], line[512], *colon, *end;
	json_t *model = NULL;
	FILE *f;

	snprintf(file, sizeof(file), "%s/cpuinfo", ctl_proc());
	f = fopen(file, "re");
	while (f && !model && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) || !(colon = strchr(line, ':')))
			continue;
		for (colon++; *colon == ' ' || *colon == '\t'; colon++)
			;
		end = colon + strcspn(colon, "\n");
		*end = '\0';
		model = json_string(colon);
	}
	if (f)
		fclose(f);
	return model;
}

/*
 * Every CPU's cpufreq governor, once each ("performance", or
 * "ondemand,performance" when they differ); "none" without cpufreq
 * (a VM, or a kernel without it), where the clock cannot change.
 */
static json_t *cpufreq_governors(void)
{
	char rel[128], gov[64], seen[8][64], all[8 * 65] = "";
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int nseen = 0, k;
	size_t used = 0;

	for (long cpu = 0; cpu < n && nseen < 8; cpu++) {
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%ld/cpufreq/scaling_governor",
			 cpu);
		if (ctl_sys_read(rel, gov, sizeof(gov)) || !*gov)
			continue;
		for (k = 0; k < nseen && strcmp(seen[k], gov); k++)
			;
		if (k < nseen)
			continue;
		ctl_copy(seen[nseen++], sizeof(seen[0]), gov);
		used += (size_t)snprintf(all + used, sizeof(all) - used,
					 "%s%s", used ? "," : "", gov);
	}
	return json_string(*all ? all : "none");
}

json_t *bench_provenance(void)
{
	char when[32] = "", file[4096], backend[CTL_NAME_MAX], site[512];
	char watchdog[128], clocksource[64];
	struct ctl_paths paths;
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	bool have_backend, have_watchdog, have_clock;
	json_t *sites;

	if (uname(&u))
		u.release[0] = u.version[0] = u.nodename[0] = '\0';
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* Two backends on one kernel release measure different sites. */
	snprintf(file, sizeof(file), "%s/backend", ctl_sysfs());
	have_backend = !ctl_read(file, backend, sizeof(backend));
	/*
	 * Where each legacy arm ran: on PREEMPT_RT timer_fastpath's is a
	 * variant, and its site says so in every result.
	 */
	sites = json_object();
	ctl_path_names(&paths);
	for (int i = 0; sites && i < paths.n; i++)
		if (!ctl_path_site(paths.name[i], site, sizeof(site)))
			json_object_set_new(sites, paths.name[i],
					    json_string(site));
	/* A legacy arm's calls were judged against these budgets. */
	have_watchdog = !ctl_param("watchdog_us", watchdog, sizeof(watchdog));
	/*
	 * Every wall time came from this clock: a VM that fell back from
	 * the TSC to hpet or acpi_pm pays for every read of it.
	 */
	have_clock = !ctl_sys_read("devices/system/clocksource/clocksource0/"
				   "current_clocksource", clocksource,
				   sizeof(clocksource));
	return json_pack("{s:s, s:s, s:s, s:s?, s:o?, s:s?, s:o?, s:I, s:o?, "
			 "s:o?, s:s?, s:s, s:s}",
			 "abpath_version", ABPATH_VERSION,
			 "kernel", u.release,
			 "kernel_version", u.version,
			 "backend", have_backend ? backend : NULL,
			 "sites", sites,
			 "watchdog_us", have_watchdog ? watchdog : NULL,
			 "module_parameters", module_parameters(),
			 "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
			 "cpu_model", cpu_model(),
			 "cpufreq_governor", cpufreq_governors(),
			 "clocksource", have_clock ? clocksource : NULL,
			 "host", u.nodename, "time", when);
}

char *bench_fmt_provenance(char *buf, size_t len, json_t *pv)
{
	snprintf(buf, len, "kernel %s, %" JSON_INTEGER_FORMAT " CPUs, host %s, "
		 "%s, abpath %s",
		 json_string_value(json_object_get(pv, "kernel")) ?: "?",
		 json_integer_value(json_object_get(pv, "cpus")),
		 json_string_value(json_object_get(pv, "host")) ?: "?",
		 json_string_value(json_object_get(pv, "time")) ?: "?",
		 json_string_value(json_object_get(pv, "abpath_version")) ?: "?");
	return buf;
}

char *bench_fmt_machine(char *buf, size_t len, json_t *pv)
{
	const char *model = json_string_value(json_object_get(pv, "cpu_model"));
	const char *gov = json_string_value(json_object_get(pv,
							    "cpufreq_governor"));
	const char *clock = json_string_value(json_object_get(pv, "clocksource"));

	buf[0] = '\0';
	if (model || gov || clock)
		snprintf(buf, len, "CPU %s, cpufreq governor %s, clocksource %s",
			 model ?: "?", gov ?: "?", clock ?: "?");
	return buf;
}

char *bench_fmt_params(char *buf, size_t len, json_t *pv)
{
	json_t *params = json_object_get(pv, "module_parameters"), *v;
	const char *k;
	size_t used = 0;

	buf[0] = '\0';
	json_object_foreach(params, k, v) {
		if (used >= len)
			break;
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
					 used ? ", " : "", k,
					 json_string_value(v) ?: "?");
	}
	return buf;
}
