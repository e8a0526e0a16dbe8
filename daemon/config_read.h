/* SPDX-License-Identifier: MIT */
/*
 * The typed readers of the configuration file, for its schema
 * (config_schema.c): each reads one setting of a group as the kind it
 * expects, checks it, and otherwise writes "FILE:LINE: SCOPE PATH KEY: what"
 * into the parse's buffer and returns -EINVAL. A setting that is absent is
 * not an error unless it is required; the value it would have set keeps its
 * default. Private to daemon/config*.c.
 */
#ifndef WB_CONFIG_READ_H
#define WB_CONFIG_READ_H

#include <arpa/inet.h>
#include <libconfig.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"

/* One file being read: where it goes, how messages name it, where they go. */
struct conf_parse {
	struct wb_config *cfg;
	const char *file; /* the name in messages */
	char *err;
	size_t errlen;
};

/*
 * A group being read, and how messages name its settings: scope, then path,
 * then the key, as in "uplink 'lte': weight" or "server.port".
 */
struct conf_sect {
	struct conf_parse *p;
	const config_setting_t *set;
	const char *scope; /* "" or "uplink 'lte': " */
	const char *path;  /* "" or "server." */
};

enum conf_kind { CONF_STRING, CONF_INT, CONF_BOOL, CONF_GROUP, CONF_LIST };

/* "a string", "an integer"...: what a setting of each kind was expected to be. */
extern const char *const conf_kind_text[];

/* ---- messages ---- */

/* "FILE:LINE: what", or "FILE: what" when line is 0. Each returns -EINVAL. */
int conf_report_line(struct conf_parse *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same at setting at (NULL: no line). */
int conf_report(struct conf_parse *p, const config_setting_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "FILE:LINE: SCOPE PATH KEY: what", as in "router.conf:7: uplink 'lte': weight: ...". */
int conf_report_key(const struct conf_sect *s, const config_setting_t *at, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A warning in the same "FILE:LINE: what" form, kept in the configuration for whoever loads it to print. */
void conf_warn(struct conf_parse *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The line of a setting; an element that has none takes its parent's. */
int conf_line_of(const config_setting_t *s);
/* Group or others may read a file that holds a secret key: as wg(8), say so. */
bool conf_others_can_read(mode_t mode);

/* ---- settings by their kind ---- */

/* The member key of s in *out (NULL when absent); -EINVAL if it is of another kind. */
int conf_member(const struct conf_sect *s, const char *key, enum conf_kind k, config_setting_t **out);
/* The same, and -EINVAL when it is absent. */
int conf_required(const struct conf_sect *s, const char *key, enum conf_kind k, config_setting_t **out);
/* A string setting; *out is NULL when it is absent and not needed. */
int conf_read_string(const struct conf_sect *s, const char *key, bool need, const char **out);
/* An integer in lo..hi into *v. */
int conf_read_range(const struct conf_sect *s, const char *key, long long lo, long long hi, long long *v);
int conf_read_u32(const struct conf_sect *s, const char *key, uint32_t lo, uint32_t hi, uint32_t *out);
/* An integer that its setting's validator (validate.h) judges. */
int conf_read_checked(const struct conf_sect *s, const char *key, int (*check)(long long, char *, size_t),
		      long long *v);
int conf_read_bool(const struct conf_sect *s, const char *key, bool *out);
/* Whether name is in the NULL-terminated list. */
bool conf_in_list(const char *name, const char *const *list);
/* "SCOPE unknown setting 'PATH KEY'" for member m of s, which no list of s's has. */
int conf_report_unknown(const struct conf_sect *s, const config_setting_t *m);
/* Every member of s must be one of known (NULL-terminated): a typo must not be silently ignored. */
int conf_check_keys(const struct conf_sect *s, const char *const *known);
/* A list [ ... ] or ( ... ) of at most max elements; *n 0 when absent and not needed; a needed one not empty. */
int conf_read_list(const struct conf_sect *s, const char *key, bool need, int max, config_setting_t **out, int *n);

/* ---- values ---- */

/* A bond, peer or uplink name (required). */
int conf_read_name(const struct conf_sect *s, const char *key, char out[WB_NAME_MAX]);
/* An interface name v of setting at, said as what ("tun name", "interface name"). */
int conf_check_ifname(const struct conf_sect *s, const config_setting_t *at, const char *what, const char *v);
/* A public key in base64 (required). */
int conf_read_public_key(const struct conf_sect *s, const char *key, uint8_t out[WB_KEY_LEN]);
/* A secret key given inline (key) or in a file (key_file), at most one of them; *has whether either is. */
int conf_read_secret_key(const struct conf_sect *s, const char *key, bool need, uint8_t out[WB_KEY_LEN], bool *has);
/*
 * A list of prefixes. Routes must have no host bits set (the kernel refuses
 * 10.2.0.5/24 as a route); addresses keep them (10.255.0.1/30).
 */
int conf_read_prefixes(const struct conf_sect *s, const char *key, bool routes, struct wb_prefix *out, int max,
		       int *n);
bool conf_prefix_equal(const struct wb_prefix *a, const struct wb_prefix *b);
/* "10.1.0.0/24", for messages. */
const char *conf_prefix_text(const struct wb_prefix *p, char buf[INET6_ADDRSTRLEN + 4]);

#endif
