// SPDX-License-Identifier: GPL-2.0
/*
 * Where and when a bench ran, kept with its result (its "provenance"):
 * abpath's version, the kernel and its build, the backend and each
 * legacy arm's site, the module's parameters, the CPUs, their governor
 * and the clocksource, the host and the time; and the lines the reports
 * make of it.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "../control.h"

static void add_param(const char *name, const char *val, void *ctx)
{
	json_object_set_new(ctx, name, json_string(val));
}

/*
 * {name: value} of every parameter the loaded module has, in name order
 * for a stable result; NULL without the module.
 */
static json_t *module_parameters(void)
{
	json_t *params = json_object();

	if (params && ctl_params(add_param, params)) {
		json_decref(params);
		return NULL;
	}
	return params;
}

static json_t *cpu_model(void)
{
	char model[512];

	return ctl_cpu_model(model, sizeof(model)) ? NULL : json_string(model);
}

/*
 * The microcode revisions: a fleet's hosts of one CPU model may differ
 * by them, and mitigations in microcode change what a path costs.
 * "none" when cpuinfo shows none; left out when cpuinfo is unreadable.
 */
static json_t *cpu_microcode(void)
{
	char rev[512];

	if (ctl_cpu_microcode(rev, sizeof(rev)))
		return NULL;
	return json_string(*rev ? rev : "none");
}

/*
 * Every CPU's cpufreq governor, once each ("performance", or
 * "ondemand,performance" when they differ); "none" without cpufreq
 * (a VM, or a kernel without it), where the clock cannot change.
 */
static json_t *cpufreq_governors(void)
{
	char gov[64], seen[8][64], all[8 * 65] = "";
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int nseen = 0, k;
	size_t used = 0;

	for (long cpu = 0; cpu < n && nseen < 8; cpu++) {
		if (ctl_cpufreq_governor(cpu, gov, sizeof(gov)) || !*gov)
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

/* Where each legacy arm ran, {path: site}, for the paths the module has. */
static json_t *sites(void)
{
	struct ctl_paths paths;
	json_t *sites = json_object();
	char site[512];

	ctl_path_names(&paths);
	for (int i = 0; sites && i < paths.n; i++)
		if (!ctl_path_site(paths.name[i], site, sizeof(site)))
			json_object_set_new(sites, paths.name[i],
					    json_string(site));
	return sites;
}

json_t *bench_provenance(void)
{
	char when[32] = "", backend[CTL_NAME_MAX], clocksource[64], boot[64];
	json_t *params = module_parameters(), *watchdog;
	struct utsname u;
	struct timespec now = { 0 };
	struct tm tm;
	bool have_backend, have_clock, have_boot;

	if (uname(&u))
		u.release[0] = u.version[0] = u.nodename[0] = u.machine[0] = '\0';
	clock_gettime(CLOCK_REALTIME, &now);
	if (gmtime_r(&now.tv_sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/*
	 * What tells one run from another where host, kernel and the second
	 * agree: VMs of one image started together (#54).  The boot id
	 * differs between boots and machines, the nanoseconds past time's
	 * second (time_nsec) between benches of one boot.  Not one integer
	 * of nanoseconds since 1970: past 2^53 it would not survive a
	 * reader that takes JSON numbers as doubles (jq).
	 */
	have_boot = !ctl_boot_id(boot, sizeof(boot)) && *boot;
	/* Two backends on one kernel release measure different sites. */
	have_backend = !ctl_backend(backend, sizeof(backend));
	/* A legacy arm's calls were judged against this budget. */
	watchdog = json_object_get(params, "watchdog_us");
	/*
	 * Every wall time came from this clock: a VM that fell back from
	 * the TSC to hpet or acpi_pm pays for every read of it.
	 */
	have_clock = !ctl_clocksource(clocksource, sizeof(clocksource));
	/*
	 * The sites say where each legacy arm ran: on PREEMPT_RT
	 * timer_fastpath's is a variant, and its site says so in every
	 * result.
	 */
	return json_pack("{s:s, s:s, s:s, s:s, s:s?, s:o?, s:O?, s:o?, s:I, "
			 "s:o?, s:o?, s:o?, s:s?, s:s, s:s, s:I, s:s?}",
			 "abpath_version", ABPATH_VERSION,
			 "kernel", u.release,
			 "kernel_version", u.version,
			 "machine", u.machine,
			 "backend", have_backend ? backend : NULL,
			 "sites", sites(),
			 "watchdog_us", watchdog,
			 "module_parameters", params,
			 "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
			 "cpu_model", cpu_model(),
			 "microcode", cpu_microcode(),
			 "cpufreq_governor", cpufreq_governors(),
			 "clocksource", have_clock ? clocksource : NULL,
			 "host", u.nodename, "time", when,
			 "time_nsec", (json_int_t)now.tv_nsec,
			 "boot_id", have_boot ? boot : NULL);
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
	const char *ucode = json_string_value(json_object_get(pv, "microcode"));

	buf[0] = '\0';
	if (model || gov || clock)
		snprintf(buf, len, "CPU %s, microcode %s, cpufreq governor %s, "
			 "clocksource %s", model ?: "?", ucode ?: "-", gov ?: "?",
			 clock ?: "?");
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
