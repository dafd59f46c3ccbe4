// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl list [--all] [--json] [-c FILE] [--root DIR]: every workqueue
 * in sysfs with its kind, attributes and the section that matches it;
 * --all: also those the kernel keeps out of reach, and why.
 */
#include "common.h"
#include "config.h"
#include "config_load.h"
#include "ctl.h"
#include "inventory.h"
#include "json.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The order a person reads attributes in; pool_ids follows */
static const enum wq_attr list_order[] = {
	WA_POLICY,     WA_RTPRIO,	  WA_NICE,
	WA_CPUMASK,    WA_AFFINITY_SCOPE, WA_AFFINITY_STRICT,
	WA_MAX_ACTIVE, WA_NR_IDLE_EXTRA,  WA_PRIVATE,
};

/* The section of cfg (or NULL) that matches workqueue name: "[wq:...]" or "-" */
static void section_name(const struct config *cfg, const char *name, char *buf,
			 size_t size)
{
	const struct rule *r = cfg ? config_match_wq(cfg, name) : NULL;

	if (r)
		snprintf(buf, size, "[%s]", r->section);
	else
		snprintf(buf, size, "-");
}

static void inv_table(FILE *f, const struct inventory *inv,
		      const struct config *cfg, bool all)
{
	char sec[300], val[300], why[300];
	size_t i, j, hidden = 0;

	fprintf(f, "%-24s %-8s %-24s %s\n", "WORKQUEUE", "KIND", "SECTION",
		"ATTRIBUTES");
	for (i = 0; i < inv->n; i++) {
		const struct inv_wq *w = &inv->v[i];

		if (!inv_reachable(w)) {
			hidden++;
			continue;
		}
		section_name(cfg, w->name, sec, sizeof(sec));
		fprintf(f, "%-24s %-8s %-24s", w->name, wq_kind_name(w->kind),
			sec);
		for (j = 0; j < ARRAY_SIZE(list_order); j++) {
			enum wq_attr a = list_order[j];

			if (!(w->st.present & WA_BIT(a)))
				continue;
			attr_format_human(a, &w->st.cur, val, sizeof(val));
			fprintf(f, " %s=%s%s", attr_name(a),
				strchr(val, ' ') ? "\"" : "", val);
			if (strchr(val, ' '))
				fputc('"', f);
		}
		if (w->pool_ids && w->pool_ids[0])
			fprintf(f, " pool_ids=\"%s\"", w->pool_ids);
		fputc('\n', f);
	}
	if (!all) {
		if (hidden)
			fprintf(f,
				"\n%zu more the kernel does not let wqrtd reach: wqrtctl list --all\n",
				hidden);
		return;
	}
	fprintf(f, "\nOut of reach (%zu):\n%-24s %-8s %-24s %s\n", hidden,
		"WORKQUEUE", "KIND", "SECTION", "WHY");
	for (i = 0; i < inv->n; i++) {
		const struct inv_wq *w = &inv->v[i];

		if (inv_reachable(w))
			continue;
		section_name(cfg, w->name, sec, sizeof(sec));
		fprintf(f, "%-24s %-8s %-24s %s", w->name,
			wq_kind_name(w->kind), sec,
			inv_reason(w, why, sizeof(why)));
		if (w->seen_as[0])
			fprintf(f, " (seen as %s)", w->seen_as);
		fputc('\n', f);
	}
}

static void inv_json(FILE *f, const struct inventory *inv,
		     const struct config *cfg, bool all)
{
	char why[300];
	size_t i, j, n = 0;

	fprintf(f, "{\"schema\": %d, \"workqueues\": [", WQRT_JSON_SCHEMA);
	for (i = 0; i < inv->n; i++) {
		const struct inv_wq *w = &inv->v[i];
		const struct rule *r = cfg ? config_match_wq(cfg, w->name) : NULL;
		bool first = true;

		if (!all && !inv_reachable(w))
			continue;
		fprintf(f, "%s\n  {\"name\": ", n++ ? "," : "");
		json_str(f, w->name);
		fprintf(f,
			", \"kind\": \"%s\", \"in_sysfs\": %s, \"reachable\": %s, \"section\": ",
			wq_kind_name(w->kind), w->in_sysfs ? "true" : "false",
			inv_reachable(w) ? "true" : "false");
		if (r)
			json_str(f, r->section);
		else
			fputs("null", f);
		if (!inv_reachable(w)) {
			fprintf(f, ", \"reason\": ");
			json_str(f, inv_reason(w, why, sizeof(why)));
			fprintf(f, ", \"truncated\": %s",
				w->truncated ? "true" : "false");
		}
		if (w->seen_as[0]) {
			fprintf(f, ", \"seen_as\": ");
			json_str(f, w->seen_as);
		}
		fprintf(f, ", \"attributes\": {");
		for (j = 0; j < ARRAY_SIZE(list_order); j++) {
			enum wq_attr a = list_order[j];

			if (!(w->st.present & WA_BIT(a)))
				continue;
			fprintf(f, "%s\"%s\": ", first ? "" : ", ",
				attr_name(a));
			json_attr(f, a, &w->st.cur);
			first = false;
		}
		if (w->pool_ids && w->pool_ids[0]) {
			fprintf(f, "%s\"pool_ids\": ", first ? "" : ", ");
			json_str(f, w->pool_ids);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "\n]}\n");
}

void list_print(FILE *f, bool json, const struct inventory *inv,
		const struct config *cfg, bool all)
{
	if (json)
		inv_json(f, inv, cfg, all);
	else
		inv_table(f, inv, cfg, all);
}

/*
 * Every workqueue in sysfs, its kind, attributes and the section that
 * matches it; --all: also those out of reach, and why.
 */
int cmd_list(int argc, char **argv)
{
	const char *path = WQRT_DEFAULT_CONF;
	struct config *cfg = NULL;
	struct inventory inv;
	struct cmd_opts o;
	int err;

	err = parse_cmd_opts(argc, argv,
			     OPT_ALL | OPT_JSON | OPT_CONFIG | OPT_ROOT, &o);
	if (err)
		return err;
	if (o.config)
		path = o.config;
	/*
	 * The sections come from the configuration; without one (a board
	 * with nothing installed yet) the list is still worth having, unless
	 * the file was asked for by name.
	 */
	if (o.config || !access(path, F_OK)) {
		if (config_load_report(path, o.root, &cfg, NULL))
			return EX_CONFIG;
	}
	err = inventory_scan(o.root, o.all, &inv);
	if (err) {
		fprintf(stderr, "wqrtctl: cannot list %s%s: %s\n",
			strcmp(o.root, "/") ? o.root : "", WQ_SYSFS_DIR,
			strerror(-err));
		config_free(cfg);
		return EX_OSFILE;
	}
	list_print(stdout, o.json, &inv, cfg, o.all);
	inventory_free(&inv);
	config_free(cfg);
	return 0;
}
