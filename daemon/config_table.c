// SPDX-License-Identifier: MIT
/*
 * Settings tables (config_table.h): the loops that read a group, set its
 * defaults and hand it to the library, each driven by the group's table.
 */
#include "config_table.h"

#include <stdio.h>
#include <string.h>

#include "config_read.h"
#include "nsec.h"

unsigned long long conf_unit_scale(enum conf_unit unit)
{
	switch (unit) {
	case CONF_UNIT_MS:
		return WB_NSEC_PER_MSEC;
	case CONF_UNIT_SECONDS:
		return WB_NSEC_PER_SEC;
	case CONF_UNIT_KB:
		return 1ULL << 10;
	case CONF_UNIT_MB:
		return 1ULL << 20;
	case CONF_UNIT_NONE:
		break;
	}
	return 1;
}

const char *conf_unit_suffix(enum conf_unit unit)
{
	static const char *const suffix[] = {
		[CONF_UNIT_NONE] = "",  [CONF_UNIT_MS] = "_ms", [CONF_UNIT_SECONDS] = "_seconds",
		[CONF_UNIT_KB] = "_kb", [CONF_UNIT_MB] = "_mb",
	};

	return suffix[unit];
}

const struct conf_setting *conf_table_find(const struct conf_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->settings[i].name, name))
			return &t->settings[i];
	return NULL;
}

/* ---- the fields ---- */

static void *field_of(const struct conf_setting *set, void *conf)
{
	return (char *)conf + set->offset;
}

static void *lib_field_of(const struct conf_setting *set, void *lib)
{
	return (char *)lib + set->lib.offset;
}

unsigned long long conf_setting_value(const struct conf_setting *set, const void *conf)
{
	const void *field = (const char *)conf + set->offset;

	switch (set->type) {
	case CONF_U32:
		return *(const uint32_t *)field;
	case CONF_U64:
		return *(const uint64_t *)field;
	case CONF_FLAG:
		return *(const bool *)field;
	case CONF_TEXT:
		break;
	}
	return 0;
}

const char *conf_setting_text(const struct conf_setting *set, const void *conf)
{
	return set->type == CONF_TEXT ? (const char *)conf + set->offset : NULL;
}

static void set_value(const struct conf_setting *set, void *conf, unsigned long long v)
{
	void *field = field_of(set, conf);

	switch (set->type) {
	case CONF_U32:
		*(uint32_t *)field = (uint32_t)v;
		break;
	case CONF_U64:
		*(uint64_t *)field = v;
		break;
	case CONF_FLAG:
		*(bool *)field = v != 0;
		break;
	case CONF_TEXT:
		break;
	}
}

static void set_text(const struct conf_setting *set, void *conf, const char *v)
{
	snprintf(field_of(set, conf), set->size, "%s", v);
}

/* ---- reading ---- */

static int check_keys(const struct conf_sect *s, const struct conf_table *t, const char *const *more)
{
	for (int i = 0; i < config_setting_length(s->set); i++) {
		const config_setting_t *m = config_setting_get_elem(s->set, (unsigned)i);
		const char *name = config_setting_name(m);

		if (!conf_table_find(t, name) && !(more && conf_in_list(name, more)))
			return conf_report_unknown(s, m);
	}
	return 0;
}

/* The setting as its type and range; a text is only seen to be a string here (take_text judges it). */
static int read_typed(const struct conf_sect *s, const struct conf_setting *set, void *conf)
{
	long long v = (long long)conf_setting_value(set, conf);
	const char *text;
	int ret;

	switch (set->type) {
	case CONF_U32:
	case CONF_U64:
		if ((ret = conf_read_range(s, set->name, set->lo, set->hi, &v)))
			return ret;
		set_value(set, conf, (unsigned long long)v);
		return 0;
	case CONF_FLAG:
		return conf_read_bool(s, set->name, field_of(set, conf));
	case CONF_TEXT:
		return conf_read_string(s, set->name, false, &text);
	}
	return 0;
}

/* A text the file sets, once every setting of the group has its type: judged, then kept. */
static int take_text(const struct conf_sect *s, const struct conf_setting *set, void *conf)
{
	const config_setting_t *at = config_setting_get_member(s->set, set->name);
	const char *v = at ? config_setting_get_string(at) : NULL;
	int ret;

	if (!v)
		return 0;
	if ((ret = set->check(s, at, set, v)))
		return ret;
	set_text(set, conf, v);
	return 0;
}

int conf_table_read(const struct conf_sect *root, const struct conf_table *t, const char *const *more,
		    struct conf_sect *s)
{
	void *conf = (char *)root->p->cfg + t->offset;
	config_setting_t *g;
	int ret = conf_member(root, t->name, CONF_GROUP, &g);

	*s = (struct conf_sect){ root->p, g, "", t->path };
	if (ret || !g)
		return ret;
	if ((ret = check_keys(s, t, more)))
		return ret;
	for (size_t i = 0; i < t->n; i++)
		if ((ret = read_typed(s, &t->settings[i], conf)))
			return ret;
	for (size_t i = 0; i < t->n; i++)
		if (t->settings[i].type == CONF_TEXT && (ret = take_text(s, &t->settings[i], conf)))
			return ret;
	return 0;
}

/* ---- defaults and the library ---- */

/* The library's default of a setting it has, in the file's unit. */
static void default_from_lib(const struct conf_setting *set, void *conf, const void *lib)
{
	const void *field = (const char *)lib + set->lib.offset;

	switch (set->type) {
	case CONF_U32:
	case CONF_U64:
		set_value(set, conf, *(const uint64_t *)field / conf_unit_scale(set->unit));
		break;
	case CONF_FLAG:
		set_value(set, conf, *(const bool *)field != set->lib.negated);
		break;
	case CONF_TEXT:
		set_text(set, conf, field);
		break;
	}
}

void conf_table_defaults(const struct conf_table *t, void *conf, const void *lib)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct conf_setting *set = &t->settings[i];

		if (set->lib.has)
			default_from_lib(set, conf, lib);
		else if (set->type == CONF_TEXT)
			set_text(set, conf, set->def_text ? set->def_text : "");
		else
			set_value(set, conf, set->def);
	}
}

static void setting_to_lib(const struct conf_setting *set, const void *conf, void *lib)
{
	void *field = lib_field_of(set, lib);

	switch (set->type) {
	case CONF_U32:
	case CONF_U64:
		*(uint64_t *)field = conf_setting_value(set, conf) * conf_unit_scale(set->unit);
		break;
	case CONF_FLAG:
		*(bool *)field = (conf_setting_value(set, conf) != 0) != set->lib.negated;
		break;
	case CONF_TEXT:
		snprintf(field, set->lib.size, "%s", conf_setting_text(set, conf));
		break;
	}
}

void conf_table_to_lib(const struct conf_table *t, const void *conf, void *lib)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->settings[i].lib.has)
			setting_to_lib(&t->settings[i], conf, lib);
}
