/* SPDX-License-Identifier: MIT */
/*
 * A group of flat settings described by one table, as netifd's blobmsg
 * policies describe a message: each setting's name, type, range, unit and
 * where its value goes, in the daemon's struct wb_conf_* and, when the
 * group has one, in the library's struct. The reader (key check, typed read
 * with range), the defaults, the translation into the library's units and
 * the documentation's check (tests/unit/test_config_table.c) all loop over
 * the same table, so that a setting is named once. The tables themselves
 * are config_groups.c's.
 */
#ifndef WB_CONFIG_TABLE_H
#define WB_CONFIG_TABLE_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conf_sect;

/* What a setting holds, in the file and in its struct wb_conf_* field. */
enum conf_type {
	CONF_U32,  /* an integer in lo..hi; a uint32_t */
	CONF_U64,  /* the same beyond 32 bits (written with L); a uint64_t */
	CONF_FLAG, /* true or false; a bool */
	CONF_TEXT, /* a string that the setting's check judges; a char[size] */
};

/*
 * The unit a setting is written in, which its name ends with. The library
 * counts time in ns and sizes in bytes; the file in ms, seconds, KiB and
 * MiB. The scale between the two (conf_unit_scale) is said here only.
 */
enum conf_unit {
	CONF_UNIT_NONE,    /* a count, a flag, a text: as the library has it */
	CONF_UNIT_MS,      /* "_ms": milliseconds, the library's ns */
	CONF_UNIT_SECONDS, /* "_seconds": the library's ns */
	CONF_UNIT_KB,      /* "_kb": KiB, the library's bytes */
	CONF_UNIT_MB,      /* "_mb": MiB, the library's bytes */
};

struct conf_setting;

/* 0, or -EINVAL with what is wrong with text v of setting at said (conf_report_key). */
typedef int conf_text_check(const struct conf_sect *s, const config_setting_t *at, const struct conf_setting *set,
			    const char *v);

/* Where the library keeps a setting: a uint64_t in the library's unit, a bool or a char array. */
struct conf_lib_field {
	bool has;     /* false: the setting is the daemon's alone */
	bool negated; /* a flag the library holds the other way round (aqm: no_aqm) */
	size_t offset;
	size_t size; /* a text's, NUL included */
};

struct conf_setting {
	const char *name; /* in the file, and its field's name in the group's struct wb_conf_* */
	enum conf_type type;
	enum conf_unit unit;
	long long lo, hi; /* an integer's range, in the file's unit */
	size_t offset;    /* of the field in the group's struct wb_conf_* */
	size_t size;      /* a text's field, NUL included */
	conf_text_check *check; /* every text has one: it also keeps the text within size */
	struct conf_lib_field lib;
	/* A setting the library does not have: its default (a text's in def_text). The library's is the others'. */
	unsigned long long def;
	const char *def_text;
};

/* One group of the file: "timers = { ... };". */
struct conf_table {
	const char *name; /* "timers" */
	const char *path; /* "timers.", as messages name its settings */
	size_t offset;    /* of the group's struct wb_conf_* in struct wb_config */
	const struct conf_setting *settings;
	size_t n;
};

/*
 * offsetof(T, field), which the compiler refuses unless the field is of
 * type type: a table's entry cannot point at a field of another type.
 */
#define CONF_FIELD(T, field, type) _Generic(((T *)0)->field, type: offsetof(T, field))

/* How many of the library's units one of the file's is: 1000000 for CONF_UNIT_MS (ns). */
unsigned long long conf_unit_scale(enum conf_unit unit);
/* What the name of a setting in that unit ends with: "_ms", ...; "" for CONF_UNIT_NONE. */
const char *conf_unit_suffix(enum conf_unit unit);

/* The setting of t called name, or NULL. */
const struct conf_setting *conf_table_find(const struct conf_table *t, const char *name);

/*
 * The group t of root, if the file has it, into the configuration: every
 * member one of t's settings or of more (NULL-terminated, or NULL), each
 * of t's read as its type and range, then each text judged by its check.
 * *s is the group as read (s->set NULL when the file has none), for what
 * the caller reads or checks beside it.
 */
int conf_table_read(const struct conf_sect *root, const struct conf_table *t, const char *const *more,
		    struct conf_sect *s);

/*
 * Every setting of t in conf (the group's struct wb_conf_*) at its default:
 * the library's, lib (its struct of defaults), in the file's unit; the
 * table's own for a setting the library does not have.
 */
void conf_table_defaults(const struct conf_table *t, void *conf, const void *lib);

/* Every setting of t that the library has, from conf into lib, in the library's unit. */
void conf_table_to_lib(const struct conf_table *t, const void *conf, void *lib);

/* A setting's value in conf: an integer as it is, a flag as 0 or 1; a text's is conf_setting_text. */
unsigned long long conf_setting_value(const struct conf_setting *set, const void *conf);
const char *conf_setting_text(const struct conf_setting *set, const void *conf);

#endif
