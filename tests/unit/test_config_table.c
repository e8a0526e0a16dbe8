// SPDX-License-Identifier: MIT
/*
 * Unit tests: the settings tables (daemon/config_table.c, config_groups.c),
 * and what must say the same as they do: docs/configuration.md (each
 * setting's type, default and range, in its group's section and in the UCI
 * section) and the OpenWrt generator (openwrt/wanbond/files/wanbond-uci.sh).
 * A setting added to a table and not to those fails here.
 *
 * The files are read from the source tree, the working directory of
 * tests/run-unit.sh; WB_SOURCE_ROOT names another (a scratch copy, to see
 * this test fail).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_groups.h"
#include "config_read.h"
#include "read_whole.h"
#include "wanbond.h"

#define DOC_PATH "docs/configuration.md"
#define UCI_PATH "openwrt/wanbond/files/wanbond-uci.sh"
#define COLUMNS 8

/* ---- the files ---- */

/* The whole file under the source root, NUL-terminated; the caller frees it. */
static char *slurp(const char *rel)
{
	const char *root = getenv("WB_SOURCE_ROOT");
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", rel);
	return read_whole(path);
}

/* The text under heading (a whole line) up to the next heading of its level or above; the caller frees it. */
static char *section(const char *doc, const char *heading)
{
	char line[128];
	const char *start, *end;

	snprintf(line, sizeof(line), "\n%s\n", heading);
	start = strstr(doc, line);
	if (!start)
		fail_msg("%s: no section %s", DOC_PATH, heading);
	start += strlen(line);
	end = strstr(start, "\n## ");
	if (strstr(start, "\n### ") && (!end || strstr(start, "\n### ") < end))
		end = strstr(start, "\n### ");
	if (!end)
		end = start + strlen(start);
	return strndup(start, (size_t)(end - start));
}

/* The line of text that begins with prefix, copied into line; false if there is none. */
static bool line_with(const char *text, const char *prefix, char *line, size_t size)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\n");

		if (!strncmp(l, prefix, strlen(prefix))) {
			snprintf(line, size, "%.*s", (int)len, l);
			return true;
		}
	}
	return false;
}

/* A Markdown table's row "| a | b | c |" into its cells, trimmed, in place. Returns how many. */
static int cells(char *row, char *cell[COLUMNS])
{
	int n = 0;
	char *c;

	if (*row++ != '|')
		return 0;
	/* The piece after the last '|' is no cell: strsep leaves row NULL on it. */
	while (n < COLUMNS && (c = strsep(&row, "|")) && row) {
		while (*c == ' ')
			c++;
		for (char *e = c + strlen(c); e > c && e[-1] == ' '; e--)
			e[-1] = '\0';
		cell[n++] = c;
	}
	return n;
}

/* The line of text that holds needle, copied into line; false if there is none. */
static bool line_holding(const char *text, const char *needle, char *line, size_t size)
{
	const char *at = strstr(text, needle), *start;

	if (!at)
		return false;
	for (start = at; start > text && start[-1] != '\n'; start--)
		;
	snprintf(line, size, "%.*s", (int)strcspn(start, "\n"), start);
	return true;
}

/* ---- the groups, their settings and the scheduler's rules ---- */

/* A client with only what is required (test_config.c's keys): the groups come after its line 6. */
#define R_PRIV "KjVAS1ZhbHeCjZijrrnEz9rl8PsGERwnMj1IU15pdH8="
#define V_PUB "FI9ZbbVAveaVM3FrURJ+JKMi2Q+t/xRUwXPnA+z3RnA="
#define CLIENT_MIN                                                                                 \
	"role = \"client\";\nname = \"home\";\nprivate_key = \"" R_PRIV "\";\n"                   \
	"server = { address = \"198.51.100.7\"; public_key = \"" V_PUB "\"; };\n"                 \
	"tun = { address = [ \"10.255.0.2/30\" ]; };\n"                                           \
	"uplinks = ( { name = \"dsl\"; interface = \"wan1\"; } );\n"

/* The configuration of a file that sets none of the groups: every default, as the daemon has them. */
static void defaults(struct wb_config *cfg)
{
	char err[256];

	if (wb_config_parse(cfg, CLIENT_MIN, "t.conf", err, sizeof(err)))
		fail_msg("%s", err);
}

/* The scheduler's rules are settings of its group too, flags named by the library. */
static bool is_rule(const struct conf_table *t, const char *name)
{
	return t == &conf_scheduler && wb_sched_rule_by_name(name) != 0;
}

static bool known_setting(const struct conf_table *t, const char *name)
{
	return conf_table_find(t, name) || is_rule(t, name);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return m && n >= m && !strcmp(s + n - m, suffix);
}

/* A name says its unit ("_ms", "_kb"...): its table must say the same, or it is scaled otherwise than named. */
static void test_names_say_their_units(void **state)
{
	static const enum conf_unit units[] = { CONF_UNIT_MS, CONF_UNIT_SECONDS, CONF_UNIT_KB, CONF_UNIT_MB };

	(void)state;
	for (const struct conf_table *const *t = conf_groups; *t; t++)
		for (size_t i = 0; i < (*t)->n; i++) {
			const struct conf_setting *set = &(*t)->settings[i];

			for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
				if (ends_with(set->name, conf_unit_suffix(units[u])) != (set->unit == units[u]))
					fail_msg("%s%s: its name and its unit (%d) disagree", (*t)->path, set->name,
						 (int)set->unit);
			if (set->unit != CONF_UNIT_NONE && set->type != CONF_U32 && set->type != CONF_U64)
				fail_msg("%s%s: a unit for what is no integer", (*t)->path, set->name);
		}
}

/* A text is judged by its check, which also keeps it within its field; the library's field has a size too. */
static void test_every_text_has_a_check(void **state)
{
	(void)state;
	for (const struct conf_table *const *t = conf_groups; *t; t++)
		for (size_t i = 0; i < (*t)->n; i++) {
			const struct conf_setting *set = &(*t)->settings[i];

			if (set->type != CONF_TEXT)
				continue;
			if (!set->check || set->size < 2 || (set->lib.has && set->lib.size < set->size))
				fail_msg("%s%s: a text without a check or room", (*t)->path, set->name);
		}
}

static bool lib_field_equal(const struct conf_setting *set, const void *a, const void *b)
{
	const char *x = (const char *)a + set->lib.offset, *y = (const char *)b + set->lib.offset;

	switch (set->type) {
	case CONF_U32:
	case CONF_U64:
		return *(const uint64_t *)(const void *)x == *(const uint64_t *)(const void *)y;
	case CONF_FLAG:
		return *(const bool *)(const void *)x == *(const bool *)(const void *)y;
	case CONF_TEXT:
		return !strcmp(x, y);
	}
	return false;
}

/* Each of the library's fields of table t as lib has it, from the file's defaults in conf. */
static void assert_back_as_lib(const struct conf_table *t, const void *conf, const void *lib, size_t size)
{
	uint64_t back[64]; /* as aligned as the library's structs */

	assert_true(size <= sizeof(back));
	memset(back, 0x5a, sizeof(back));
	conf_table_to_lib(t, conf, back);
	for (size_t i = 0; i < t->n; i++)
		if (t->settings[i].lib.has && !lib_field_equal(&t->settings[i], back, lib))
			fail_msg("%s%s: the library's default is no whole number of the file's unit", t->path,
				 t->settings[i].name);
}

/* The defaults are the library's in the file's units: whole ones, so that the library gets its own back. */
static void test_defaults_go_back_to_the_library_unchanged(void **state)
{
	const struct wb_timers timers = WB_TIMERS_DEFAULT;
	struct wb_bond_tuning tuning = { 0 };
	static struct wb_config cfg;

	(void)state;
	wb_bond_tuning_defaults(&tuning);
	defaults(&cfg);
	assert_back_as_lib(&conf_timers, &cfg.timers, &timers, sizeof(timers));
	assert_back_as_lib(&conf_transport, &cfg.transport, &tuning, sizeof(tuning));
	assert_back_as_lib(&conf_scheduler, &cfg.scheduler, &tuning, sizeof(tuning));
	assert_true(cfg.transport.aqm);
	assert_int_equal(cfg.transport.send_buffer_kb, 6144);
	assert_int_equal(cfg.timers.rekey_after_seconds, 120);
	assert_string_equal(cfg.control.directory, WB_CONTROL_DIR);
}

/* ---- read through the tables ---- */

/* group = { name = v; } after a minimal client (line 7): what the daemon says of it. */
static int parse_one(const struct conf_table *t, const char *name, long long v, char *err, size_t len)
{
	static struct wb_config cfg;
	char text[1024];

	snprintf(text, sizeof(text), CLIENT_MIN "%s = { %s = %lldL; };\n", t->name, name, v);
	return wb_config_parse(&cfg, text, "t.conf", err, len);
}

/* Every integer of every table refused just outside its range, in the words of the other checks. */
static void test_every_integer_has_its_range(void **state)
{
	char err[256], want[256];

	(void)state;
	for (const struct conf_table *const *t = conf_groups; *t; t++)
		for (size_t i = 0; i < (*t)->n; i++) {
			const struct conf_setting *set = &(*t)->settings[i];

			if (set->type != CONF_U32 && set->type != CONF_U64)
				continue;
			assert_int_equal(parse_one(*t, set->name, set->hi + 1, err, sizeof(err)), -22);
			snprintf(want, sizeof(want), "t.conf:7: %s%s: %lld is out of range %lld..%lld", (*t)->path,
				 set->name, set->hi + 1, set->lo, set->hi);
			assert_string_equal(err, want);
			assert_int_equal(parse_one(*t, set->name, set->lo - 1, err, sizeof(err)), -22);
		}
}

/* ---- docs/configuration.md ---- */

static const char *doc_type(enum conf_type type)
{
	static const char *const text[] = {
		[CONF_U32] = "integer", [CONF_U64] = "64-bit integer", [CONF_FLAG] = "boolean", [CONF_TEXT] = "string",
	};

	return text[type];
}

/* A number as the page writes it, decimal or 2^N, and what follows it. */
static bool doc_number(const char *text, unsigned long long *v, const char **rest)
{
	char *end;

	if (!strncmp(text, "2^", 2)) {
		*v = 1ULL << strtoul(text + 2, &end, 10);
	} else {
		if (*text < '0' || *text > '9')
			return false;
		*v = strtoull(text, &end, 10);
	}
	*rest = end;
	return true;
}

/* What follows a value in a cell: nothing, or words after a space or a comma. */
static bool value_ends(const char *rest)
{
	return !*rest || *rest == ' ' || *rest == ',';
}

/* The default's cell begins with the default: 250, 2^60 (...), `true`, `"bbr"`, none. */
static void check_default(const char *where, const struct conf_setting *set, const void *conf, const char *cell)
{
	unsigned long long v;
	const char *rest;
	char want[128];

	switch (set->type) {
	case CONF_U32:
	case CONF_U64:
		if (!doc_number(cell, &v, &rest) || !value_ends(rest) || v != conf_setting_value(set, conf))
			fail_msg("%s: default '%s', the daemon's is %llu", where, cell, conf_setting_value(set, conf));
		return;
	case CONF_FLAG:
		snprintf(want, sizeof(want), "`%s`", conf_setting_value(set, conf) ? "true" : "false");
		break;
	case CONF_TEXT:
		if (*conf_setting_text(set, conf))
			snprintf(want, sizeof(want), "`\"%s\"`", conf_setting_text(set, conf));
		else
			snprintf(want, sizeof(want), "none");
		break;
	}
	if (strncmp(cell, want, strlen(want)) || !value_ends(cell + strlen(want)))
		fail_msg("%s: default '%s', the daemon's is %s", where, cell, want);
}

/* The range's cell begins with LO..HI. */
static void check_range(const char *where, const struct conf_setting *set, const char *cell)
{
	unsigned long long lo, hi;
	const char *rest;

	if (!doc_number(cell, &lo, &rest) || strncmp(rest, "..", 2) || !doc_number(rest + 2, &hi, &rest) ||
	    !value_ends(rest) || lo != (unsigned long long)set->lo || hi != (unsigned long long)set->hi)
		fail_msg("%s: range '%s', the daemon's is %lld..%lld", where, cell, set->lo, set->hi);
}

/* The row of setting name in the group's section: its type, and what the page says of its default and range. */
static void check_row(const char *sect, const struct conf_table *t, const struct conf_setting *set, bool has_range,
		      const void *conf)
{
	char prefix[96], row[2048], where[160], *cell[COLUMNS];
	int n;

	snprintf(prefix, sizeof(prefix), "| `%s` |", set->name);
	snprintf(where, sizeof(where), "%s, section `%s`, %s", DOC_PATH, t->name, set->name);
	if (!line_with(sect, prefix, row, sizeof(row)))
		fail_msg("%s: no row", where);
	n = cells(row, cell);
	assert_true(n >= (has_range ? 5 : 4));
	if (strcmp(cell[1], doc_type(set->type)))
		fail_msg("%s: type '%s', the daemon's is %s", where, cell[1], doc_type(set->type));
	check_default(where, set, conf, cell[2]);
	if (has_range && (set->type == CONF_U32 || set->type == CONF_U64))
		check_range(where, set, cell[3]);
}

/* A rule of the scheduler's: a boolean, true unless the library's default turns it off. */
static void check_rule_row(const char *sect, const char *name, uint32_t off)
{
	char prefix[96], row[2048], *cell[COLUMNS];
	const char *want = off & wb_sched_rule_by_name(name) ? "`false`" : "`true`";

	snprintf(prefix, sizeof(prefix), "| `%s` |", name);
	if (!line_with(sect, prefix, row, sizeof(row)))
		fail_msg("%s, section `scheduler`: no row for the rule %s", DOC_PATH, name);
	assert_true(cells(row, cell) >= 4);
	if (strcmp(cell[1], "boolean") || strcmp(cell[2], want))
		fail_msg("%s, section `scheduler`, %s: '%s', default '%s'; the daemon's: boolean, %s", DOC_PATH, name,
			 cell[1], cell[2], want);
}

/* Every row of the section is a setting the daemon has: none the page describes and the daemon refuses. */
static void check_no_stray_row(const char *sect, const struct conf_table *t)
{
	for (const char *l = strstr(sect, "\n| `"); l; l = strstr(l + 1, "\n| `")) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(l + 4, "`"), l + 4);
		if (!known_setting(t, name))
			fail_msg("%s, section `%s`: %s is no setting of the daemon's", DOC_PATH, t->name, name);
	}
}

static void check_doc_group(const char *doc, const struct conf_table *t, const struct wb_config *cfg)
{
	char heading[64], header[512], *cell[COLUMNS], *sect;
	const void *conf = (const char *)cfg + t->offset;
	bool has_range;
	int n;

	snprintf(heading, sizeof(heading), "### `%s`", t->name);
	sect = section(doc, heading);
	if (!line_with(sect, "| setting |", header, sizeof(header)))
		fail_msg("%s, section `%s`: no table of settings", DOC_PATH, t->name);
	n = cells(header, cell);
	has_range = n >= 4 && !strcmp(cell[3], "range");
	for (size_t i = 0; i < t->n; i++)
		check_row(sect, t, &t->settings[i], has_range, conf);
	for (uint32_t flag = 1; t == &conf_scheduler && flag; flag <<= 1)
		if (wb_sched_rule_name(flag))
			check_rule_row(sect, wb_sched_rule_name(flag), cfg->scheduler.off);
	check_no_stray_row(sect, t);
	free(sect);
}

/* Each setting in its group's section, with the daemon's type, default and range. */
static void test_the_page_describes_every_setting(void **state)
{
	static struct wb_config cfg;
	char *doc = slurp(DOC_PATH);

	(void)state;
	defaults(&cfg);
	for (const struct conf_table *const *t = conf_groups; *t; t++)
		check_doc_group(doc, *t, &cfg);
	free(doc);
}

/* ---- the OpenWrt generator, and the page's UCI section ---- */

/*
 * How wanbond-uci.sh writes a group: a list of "option:type" (the same
 * names) in a variable, or options PREFIX_NAME written one by one; fixed:
 * the setting the generator sets itself (control.directory, where the CLI,
 * the hotplug script and the rpcd plugin look).
 */
static const struct uci_form {
	const struct conf_table *table;
	const char *list;
	const char *prefix;
	const char *fixed;
} uci_forms[] = {
	{ &conf_timers, "WANBOND_TIMERS", NULL, NULL },
	{ &conf_transport, "WANBOND_TRANSPORT", NULL, NULL },
	{ &conf_scheduler, "WANBOND_SCHEDULER", NULL, NULL },
	{ &conf_control, NULL, "control_", "directory" },
};

static const char *uci_type(enum conf_type type)
{
	return type == CONF_FLAG ? "bool" : type == CONF_TEXT ? "str" : "int";
}

/* VAR="..." of the script, its words space-separated; the caller frees it. */
static char *uci_list(const char *script, const char *var)
{
	char start[64];
	const char *at;

	snprintf(start, sizeof(start), "\n%s=\"", var);
	at = strstr(script, start);
	if (!at)
		fail_msg("%s: no %s", UCI_PATH, var);
	at += strlen(start);
	return strndup(at, strcspn(at, "\""));
}

static bool has_word(const char *words, const char *word)
{
	size_t n = strlen(word);

	for (const char *w = strstr(words, word); w; w = strstr(w + 1, word))
		if ((w == words || strchr(" \t\n", w[-1])) && (!w[n] || strchr(" \t\n", w[n])))
			return true;
	return false;
}

/* The group's variable: each setting as "name:type", and nothing else. */
static void check_uci_list(const char *script, const struct uci_form *f)
{
	char *words = uci_list(script, f->list), *save = NULL, want[96];
	const struct conf_table *t = f->table;

	for (size_t i = 0; i < t->n; i++) {
		snprintf(want, sizeof(want), "%s:%s", t->settings[i].name, uci_type(t->settings[i].type));
		if (!has_word(words, want))
			fail_msg("%s: %s has no %s", UCI_PATH, f->list, want);
	}
	for (uint32_t flag = 1; t == &conf_scheduler && flag; flag <<= 1)
		if (wb_sched_rule_name(flag) && (snprintf(want, sizeof(want), "%s:bool", wb_sched_rule_name(flag)),
						 !has_word(words, want)))
			fail_msg("%s: %s has no %s", UCI_PATH, f->list, want);
	for (char *w = strtok_r(words, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		w[strcspn(w, ":")] = '\0';
		if (!known_setting(t, w))
			fail_msg("%s: %s has %s, no setting of %s", UCI_PATH, f->list, w, t->name);
	}
	free(words);
}

/* Options PREFIX_NAME, each in the script and in the page's UCI section. */
static void check_uci_options(const char *script, const char *uci_doc, const struct uci_form *f)
{
	char option[96];

	for (size_t i = 0; i < f->table->n; i++) {
		const char *name = f->table->settings[i].name;

		if (f->fixed && !strcmp(name, f->fixed))
			continue;
		snprintf(option, sizeof(option), "%s%s", f->prefix, name);
		if (!strstr(script, option))
			fail_msg("%s: no option %s", UCI_PATH, option);
		snprintf(option, sizeof(option), "`%s%s`", f->prefix, name);
		if (!strstr(uci_doc, option))
			fail_msg("%s, section UCI: no option %s", DOC_PATH, option);
	}
}

/* The page's row "| `a`, `b` | `GROUP` { the same names } |" names each setting of the group. */
static void check_uci_doc_row(const char *uci_doc, const struct conf_table *t)
{
	char needle[64], row[2048], name[80];

	snprintf(needle, sizeof(needle), "| `%s` { the same names } |", t->name);
	if (!line_holding(uci_doc, needle, row, sizeof(row)))
		fail_msg("%s, section UCI: no row for %s", DOC_PATH, t->name);
	for (size_t i = 0; i < t->n; i++)
		if (snprintf(name, sizeof(name), "`%s`", t->settings[i].name), !strstr(row, name))
			fail_msg("%s, section UCI: %s lacks %s", DOC_PATH, t->name, name);
	for (uint32_t flag = 1; t == &conf_scheduler && flag; flag <<= 1)
		if (wb_sched_rule_name(flag) && (snprintf(name, sizeof(name), "`%s`", wb_sched_rule_name(flag)),
						 !strstr(row, name)))
			fail_msg("%s, section UCI: %s lacks %s", DOC_PATH, t->name, name);
}

/* Each setting an option of the OpenWrt generator, of its type, and in the page's UCI section. */
static void test_the_uci_generator_writes_every_setting(void **state)
{
	char *script = slurp(UCI_PATH), *doc = slurp(DOC_PATH);
	char *uci_doc = section(doc, "### `config bond 'NAME'`");

	(void)state;
	for (size_t i = 0; i < sizeof(uci_forms) / sizeof(uci_forms[0]); i++) {
		if (uci_forms[i].list) {
			check_uci_list(script, &uci_forms[i]);
			check_uci_doc_row(uci_doc, uci_forms[i].table);
		} else {
			check_uci_options(script, uci_doc, &uci_forms[i]);
		}
	}
	free(uci_doc);
	free(doc);
	free(script);
}

/*
 * The group "classes" (daemon/config_classes.c: no table, and "interactive"
 * a group inside it): the generator's WANBOND_CLASSES, options classes_NAME
 * written as classes.NAME, and WANBOND_INTERACTIVE, options
 * interactive_NAME written as classes.interactive.NAME. Each is a setting
 * the daemon reads as the generator's type: a value of another kind (an
 * integer) is refused as that setting's, "expected" the type, not as an
 * unknown setting; and each option is in the page's UCI section (a list as
 * `list NAME`).
 */
static const struct uci_nested {
	const char *list, *prefix, *path, *open, *close;
} uci_nested[] = {
	{ "WANBOND_CLASSES", "classes_", "classes.", "classes = { ", " };" },
	{ "WANBOND_INTERACTIVE", "interactive_", "classes.interactive.", "classes = { interactive = { ", " }; };" },
};

static enum conf_kind uci_kind(const char *type)
{
	if (!strcmp(type, "bool"))
		return CONF_BOOL;
	if (!strcmp(type, "list"))
		return CONF_LIST;
	if (strcmp(type, "str"))
		fail_msg("%s: type %s of a class option, none of str, bool, list", UCI_PATH, type);
	return CONF_STRING;
}

static void check_uci_nested(const char *script, const char *uci_doc, const struct uci_nested *f)
{
	static struct wb_config cfg;
	char *words = uci_list(script, f->list), *save = NULL, text[1024], err[256], want[256];
	int n = 0;

	for (char *w = strtok_r(words, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save), n++) {
		char *type = strchr(w, ':');

		if (!type)
			fail_msg("%s: %s: %s has no type", UCI_PATH, f->list, w);
		*type++ = '\0';
		snprintf(text, sizeof(text), CLIENT_MIN "%s%s = 7;%s\n", f->open, w, f->close);
		snprintf(want, sizeof(want), "t.conf:7: %s%s: expected %s", f->path, w, conf_kind_text[uci_kind(type)]);
		if (!wb_config_parse(&cfg, text, "t.conf", err, sizeof(err)) || strcmp(err, want))
			fail_msg("%s: %s%s:%s: the daemon says '%s', not '%s'", UCI_PATH, f->path, w, type, err, want);
		snprintf(want, sizeof(want), "`%s%s%s`", uci_kind(type) == CONF_LIST ? "list " : "", f->prefix, w);
		if (!strstr(uci_doc, want))
			fail_msg("%s, section UCI: no option %s", DOC_PATH, want);
	}
	if (!n)
		fail_msg("%s: %s is empty", UCI_PATH, f->list);
	free(words);
}

/* The class options: settings of the daemon's, of their types, on the page. */
static void test_the_uci_generator_writes_the_classes(void **state)
{
	char *script = slurp(UCI_PATH), *doc = slurp(DOC_PATH);
	char *uci_doc = section(doc, "### `config bond 'NAME'`");

	(void)state;
	for (size_t i = 0; i < sizeof(uci_nested) / sizeof(uci_nested[0]); i++)
		check_uci_nested(script, uci_doc, &uci_nested[i]);
	free(uci_doc);
	free(doc);
	free(script);
}

/* Every group has its form in the generator: a new group cannot be left out of the check above. */
static void test_every_group_has_its_uci_form(void **state)
{
	size_t n = 0;

	(void)state;
	for (const struct conf_table *const *t = conf_groups; *t; t++, n++)
		assert_ptr_equal(uci_forms[n].table, *t);
	assert_int_equal(n, sizeof(uci_forms) / sizeof(uci_forms[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_say_their_units),
		cmocka_unit_test(test_every_text_has_a_check),
		cmocka_unit_test(test_defaults_go_back_to_the_library_unchanged),
		cmocka_unit_test(test_every_integer_has_its_range),
		cmocka_unit_test(test_the_page_describes_every_setting),
		cmocka_unit_test(test_every_group_has_its_uci_form),
		cmocka_unit_test(test_the_uci_generator_writes_every_setting),
		cmocka_unit_test(test_the_uci_generator_writes_the_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
