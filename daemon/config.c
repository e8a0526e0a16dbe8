// SPDX-License-Identifier: MIT
/*
 * The configuration file: libconfig text into a validated struct wb_config.
 *
 * Everything is checked here, once, so the rest of the daemon can trust the
 * struct: types, ranges, unknown settings (a typo must not be ignored),
 * duplicates, settings of the other role. Every message is "FILE:LINE: what"
 * and names the setting, as docs/configuration.md shows. Only the libconfig
 * 1.5 API is used (Debian 12 has 1.5, OpenWrt ships 1.8).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "validate.h"
#include "wanbond.h"

#define DEFAULT_PORT 51820
#define MAX_FILE_SIZE (1 << 20)  /* a config is a few kB; this only bounds a mistake */
#define KEY_FILE_MAX 128         /* a key file holds 44 characters and a newline */
#define MTU_MIN 576
#define MTU_MIN_IPV6 1280

static const struct wb_conf_timers default_timers = {
	.probe_interval_ms = 250,
	.uplink_timeout_ms = 1000,
	.handshake_retry_ms = 1000,
	.rekey_after_seconds = 120,
	.rekey_after_messages = 1ULL << 60,
};

struct parse {
	struct wb_config *cfg;
	const char *file; /* the name in messages */
	char *err;
	size_t errlen;
};

/*
 * A group being read, and how messages name its settings: scope, then path,
 * then the key, as in "uplink 'lte': weight" or "server.port".
 */
struct sect {
	struct parse *p;
	const config_setting_t *set;
	const char *scope; /* "" or "uplink 'lte': " */
	const char *path;  /* "" or "server." */
};

enum kind { K_STRING, K_INT, K_BOOL, K_GROUP, K_LIST };

static const char *const kind_text[] = {
	[K_STRING] = "a string",
	[K_INT] = "an integer",
	[K_BOOL] = "true or false",
	[K_GROUP] = "a group { ... }",
	[K_LIST] = "a list [ ... ]",
};

/* ---- messages ---- */

static int vreport(struct parse *p, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static int report_line(struct parse *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int report(struct parse *p, const config_setting_t *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes "FILE:LINE: what" (or "FILE: what" when line is 0) and returns -EINVAL. */
static int vreport(struct parse *p, int line, const char *fmt, va_list ap)
{
	int n;

	if (!p->err || !p->errlen)
		return -EINVAL;
	if (line > 0)
		n = snprintf(p->err, p->errlen, "%s:%d: ", p->file, line);
	else
		n = snprintf(p->err, p->errlen, "%s: ", p->file);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	return -EINVAL;
}

static int report_line(struct parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(p, line, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The line of a setting; an element that has none takes its parent's. */
static int line_of(const config_setting_t *s)
{
	for (; s; s = config_setting_parent(s))
		if (config_setting_source_line(s))
			return config_setting_source_line(s);
	return 0;
}

static int report(struct parse *p, const config_setting_t *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(p, at ? line_of(at) : 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int report_key(const struct sect *s, const config_setting_t *at, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "FILE:LINE: SCOPE PATH KEY: what", as in "router.conf:7: uplink 'lte': weight: ...". */
static int report_key(const struct sect *s, const config_setting_t *at, const char *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return report(s->p, at, "%s%s%s: %s", s->scope, s->path, key, what);
}

static void warn(struct parse *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A warning in the same "FILE:LINE: what" form, kept in the configuration for whoever loads it to print. */
static void warn(struct parse *p, int line, const char *fmt, ...)
{
	struct wb_config *cfg = p->cfg;
	char *out;
	va_list ap;
	int n;

	if (cfg->n_warnings >= WB_MAX_CONFIG_WARNINGS)
		return;
	out = cfg->warnings[cfg->n_warnings++];
	n = line > 0 ? snprintf(out, sizeof(cfg->warnings[0]), "%s:%d: ", p->file, line)
		     : snprintf(out, sizeof(cfg->warnings[0]), "%s: ", p->file);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof(cfg->warnings[0]))
		vsnprintf(out + n, sizeof(cfg->warnings[0]) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Group or others may read a file that holds a secret key: as wg(8), say so. */
static bool others_can_read(mode_t mode)
{
	return (mode & (S_IRGRP | S_IROTH)) != 0;
}

/* ---- the text before libconfig reads it ---- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool is_alnum(char c)
{
	return is_alpha(c) || is_digit(c);
}

/* Past a string's closing quote (t is after the opening one), counting lines; NULL if there is none. */
static const char *skip_string(const char *t, int *line)
{
	for (; *t && *t != '"'; t++) {
		if (*t == '\\' && t[1])
			t++;
		if (*t == '\n')
			(*line)++;
	}
	return *t ? t + 1 : NULL;
}

/* Past a block comment (t is after its opening), counting lines. */
static const char *skip_block_comment(const char *t, int *line)
{
	for (; *t && !(t[0] == '*' && t[1] == '/'); t++)
		if (*t == '\n')
			(*line)++;
	return *t ? t + 2 : t;
}

/* A setting name as libconfig's scanner reads one: [A-Za-z*][-A-Za-z0-9_*]*. */
static const char *skip_name(const char *t)
{
	while (is_alnum(*t) || *t == '-' || *t == '_' || *t == '*')
		t++;
	return t;
}

static bool is_hex(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* The end of a number token: digits, letters, dots, and a sign after an exponent's e. */
static const char *number_end(const char *t)
{
	bool hex;

	if (*t == '+' || *t == '-')
		t++;
	hex = is_hex(t);
	for (; is_alnum(*t) || *t == '.' || *t == '_'; t++)
		if (!hex && (*t == 'e' || *t == 'E') && (t[1] == '+' || t[1] == '-'))
			t++;
	return t;
}

/* Whether a token libconfig reads as a 32-bit integer (no L suffix) does not fit in one. */
static bool int32_overflows(const char *s, size_t len)
{
	char buf[32];
	const char *digits = s + (*s == '+' || *s == '-');
	size_t n = len - (size_t)(digits - s);
	long long v;

	if (s[len - 1] == 'L')
		return false;
	if (is_hex(s)) {
		/* 1.5 keeps the low 32 bits of a hex literal; 0xffffffff is the largest kept whole. */
		for (digits += 2, n -= 2; n && *digits == '0'; digits++, n--)
			;
		return n > 8 && strspn(digits, "0123456789abcdefABCDEF") >= n;
	}
	if (strspn(digits, "0123456789") < n)
		return false; /* a float, or something libconfig rejects itself */
	if (len >= sizeof(buf))
		return true;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoll(buf, NULL, 10);
	return errno == ERANGE || v < INT_MIN || v > INT_MAX;
}

static int check_number(struct parse *p, const char **t, int line)
{
	const char *s = *t;
	size_t len = 0;

	*t = number_end(s);
	len = (size_t)(*t - s);
	if (int32_overflows(s, len))
		return report_line(p, line, "integer %.*s does not fit in 32 bits: write %.*sL", (int)len, s,
				   (int)len, s);
	return 0;
}

static bool starts_number(const char *t)
{
	if (*t == '+' || *t == '-')
		t++;
	return is_digit(*t);
}

/*
 * libconfig 1.5 reads an integer written without L that does not fit in 32
 * bits as its low 32 bits (port = 4294987116 would be 51820) and follows
 * @include to any file. Neither can be told from the parsed tree, so the
 * text is scanned first, skipping strings and comments as libconfig's
 * scanner does.
 */
static int prescan(struct parse *p, const char *t)
{
	int line = 1, start, ret;

	while (*t) {
		if (*t == '\n') {
			line++;
			t++;
		} else if (*t == '"') {
			start = line;
			t = skip_string(t + 1, &line);
			/* Said here, the line is where the string starts, not the end of the text. */
			if (!t)
				return report_line(p, start, "a string with no closing quote");
		} else if (*t == '#' || (t[0] == '/' && t[1] == '/')) {
			t += strcspn(t, "\n");
		} else if (t[0] == '/' && t[1] == '*') {
			t = skip_block_comment(t + 2, &line);
		} else if (*t == '@' && !strncmp(t + 1, "include", 7)) {
			return report_line(p, line, "@include is not supported");
		} else if (is_alpha(*t) || *t == '*') {
			t = skip_name(t);
		} else if (starts_number(t)) {
			ret = check_number(p, &t, line);
			if (ret)
				return ret;
		} else {
			t++;
		}
	}
	return 0;
}

/* ---- typed settings ---- */

static bool is_kind(const config_setting_t *s, enum kind k)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		return k == K_STRING;
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return k == K_INT;
	case CONFIG_TYPE_BOOL:
		return k == K_BOOL;
	case CONFIG_TYPE_GROUP:
		return k == K_GROUP;
	case CONFIG_TYPE_ARRAY:
	case CONFIG_TYPE_LIST:
		return k == K_LIST;
	default:
		return false;
	}
}

/* The member key of s in *out (NULL when absent); -EINVAL if it is of another kind. */
static int member(const struct sect *s, const char *key, enum kind k, config_setting_t **out)
{
	config_setting_t *m = config_setting_get_member(s->set, key);

	*out = m;
	if (m && !is_kind(m, k))
		return report_key(s, m, key, "expected %s", kind_text[k]);
	return 0;
}

/* A missing setting: at the top level no line applies, inside a group the group's. */
static int missing(const struct sect *s, const char *key)
{
	const config_setting_t *at = config_setting_is_root(s->set) ? NULL : s->set;

	return report(s->p, at, "%smissing setting '%s%s'", s->scope, s->path, key);
}

static int required(const struct sect *s, const char *key, enum kind k, config_setting_t **out)
{
	int ret = member(s, key, k, out);

	if (!ret && !*out)
		return missing(s, key);
	return ret;
}

/* A string setting; *out is NULL when it is absent and not needed. */
static int read_string(const struct sect *s, const char *key, bool need, const char **out)
{
	config_setting_t *m;
	int ret = need ? required(s, key, K_STRING, &m) : member(s, key, K_STRING, &m);

	*out = m ? config_setting_get_string(m) : NULL;
	return ret;
}

/*
 * An integer as written. libconfig 1.5 stores a hex literal without L as a
 * 32-bit int (0xffffffff reads as -1); the bits are what was meant.
 */
static long long int_value(const config_setting_t *s)
{
	if (config_setting_type(s) == CONFIG_TYPE_INT && config_setting_get_format(s) == CONFIG_FORMAT_HEX)
		return (uint32_t)config_setting_get_int(s);
	return config_setting_get_int64(s);
}

/* An integer in lo..hi into *v, which is left alone (the default) when absent. */
static int read_range(const struct sect *s, const char *key, long long lo, long long hi, long long *v)
{
	config_setting_t *m;
	int ret = member(s, key, K_INT, &m);

	if (ret || !m)
		return ret;
	*v = int_value(m);
	if (*v < lo || *v > hi)
		return report_key(s, m, key, "%lld is out of range %lld..%lld", *v, lo, hi);
	return 0;
}

static int read_u32(const struct sect *s, const char *key, uint32_t lo, uint32_t hi, uint32_t *out)
{
	long long v = *out;
	int ret = read_range(s, key, lo, hi, &v);

	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

/* An integer that its setting's validator (validate.h) judges; *v is left alone (the default) when absent. */
static int read_checked(const struct sect *s, const char *key, int (*check)(long long, char *, size_t),
			long long *v)
{
	config_setting_t *m;
	char why[WB_WHY_MAX];
	int ret = member(s, key, K_INT, &m);

	if (ret || !m)
		return ret;
	*v = int_value(m);
	if (check(*v, why, sizeof(why)))
		return report_key(s, m, key, "%s", why);
	return 0;
}

static int read_bool(const struct sect *s, const char *key, bool *out)
{
	config_setting_t *m;
	int ret = member(s, key, K_BOOL, &m);

	if (!ret && m)
		*out = config_setting_get_bool(m);
	return ret;
}

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

/* Every member of s must be one of known: a typo must not be silently ignored. */
static int check_keys(const struct sect *s, const char *const *known)
{
	for (int i = 0; i < config_setting_length(s->set); i++) {
		const config_setting_t *m = config_setting_get_elem(s->set, (unsigned)i);

		if (!in_list(config_setting_name(m), known))
			return report(s->p, m, "%sunknown setting '%s%s'", s->scope, s->path,
				      config_setting_name(m));
	}
	return 0;
}

/* A list [ ... ] or ( ... ) of at most max elements; n 0 when absent and not needed. */
static int read_list(const struct sect *s, const char *key, bool need, int max, config_setting_t **out, int *n)
{
	int ret = need ? required(s, key, K_LIST, out) : member(s, key, K_LIST, out);

	*n = *out ? config_setting_length(*out) : 0;
	if (ret || !*out)
		return ret;
	if (need && *n == 0)
		return report_key(s, *out, key, "the list is empty");
	if (*n > max)
		return report_key(s, *out, key, "%d entries, at most %d", *n, max);
	return 0;
}

/* ---- values ---- */

/* A bond, peer or uplink name. */
static int read_name(const struct sect *s, const char *key, char out[WB_NAME_MAX])
{
	config_setting_t *m;
	char why[WB_WHY_MAX];
	int ret = required(s, key, K_STRING, &m);

	if (!ret && wb_validate_name(config_setting_get_string(m), why, sizeof(why)))
		ret = report_key(s, m, key, "%s", why);
	if (!ret)
		strcpy(out, config_setting_get_string(m));
	return ret;
}

/* An interface name, said as what ("tun name", "interface name"). */
static int check_ifname(const struct sect *s, const config_setting_t *at, const char *what, const char *v)
{
	char why[WB_WHY_MAX];

	if (wb_validate_ifname(v, why, sizeof(why)))
		return report(s->p, at, "%s%s %s", s->scope, what, why);
	return 0;
}

static bool all_zero(const uint8_t *b, size_t len)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < len; i++)
		acc |= b[i];
	return !acc;
}

/* A base64 key, given inline or (file not NULL) read from a file. */
static int decode_key(const struct sect *s, const config_setting_t *at, const char *key, const char *file,
		      const char *text, uint8_t out[WB_KEY_LEN])
{
	if (wb_key_from_base64(out, text))
		return file ? report_key(s, at, key, "'%s' does not hold a base64 key of 32 bytes", file)
			    : report_key(s, at, key, "not a base64 key of 32 bytes");
	if (all_zero(out, WB_KEY_LEN))
		return file ? report_key(s, at, key, "'%s' holds a key of all zeros", file)
			    : report_key(s, at, key, "the key is all zeros");
	return 0;
}

static int read_public_key(const struct sect *s, const char *key, uint8_t out[WB_KEY_LEN])
{
	config_setting_t *m;
	int ret = required(s, key, K_STRING, &m);

	return ret ? ret : decode_key(s, m, key, NULL, config_setting_get_string(m), out);
}

/*
 * Reads a key file into buf (NUL-terminated, trailing white space cut). What
 * stat() shows decides before anything is opened: opening a device can have
 * side effects (a watchdog, a tape), a FIFO blocks, and /proc and /sys files
 * (sizes 0 and 4096) are no key files. So only a regular file of 1 to size
 * bytes is opened; an empty one is read as empty without opening it.
 */
static int slurp_key_file(const char *path, char *buf, size_t size, const char **why, mode_t *mode)
{
	struct stat st;
	ssize_t n = 0;
	size_t len = 0;
	int fd, ret = 0;

	*why = NULL;
	buf[0] = '\0';
	if (stat(path, &st))
		return -errno;
	*mode = st.st_mode;
	if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if ((unsigned long long)st.st_size > size)
		*why = "too long for a key";
	if (*why || !st.st_size)
		return *why ? -EINVAL : 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* The file may have grown since stat(): read one byte more than a key file may hold. */
	while (len <= size && (n = read(fd, buf + len, size + 1 - len)) > 0)
		len += (size_t)n;
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (!ret && len > size) {
		*why = "too long for a key";
		ret = -EINVAL;
	}
	while (!ret && len && buf[len - 1] && strchr(" \t\r\n", buf[len - 1]))
		len--;
	buf[ret ? 0 : len] = '\0';
	return ret;
}

static int read_key_file(const struct sect *s, const config_setting_t *at, const char *key,
			 uint8_t out[WB_KEY_LEN])
{
	const char *path = config_setting_get_string(at), *why;
	char buf[KEY_FILE_MAX + 2];
	mode_t mode = 0;
	int ret = slurp_key_file(path, buf, KEY_FILE_MAX, &why, &mode);

	if (ret)
		report_key(s, at, key, "cannot read '%s': %s", path, why ? why : strerror(-ret));
	else
		ret = decode_key(s, at, key, path, buf, out);
	if (!ret && others_can_read(mode))
		warn(s->p, line_of(at), "%s%s%s: group or others can read '%s' (mode %04o), which holds a secret key: "
		     "chmod 600 it", s->scope, s->path, key, path, (unsigned)(mode & 07777));
	wb_wipe(buf, sizeof(buf));
	return ret;
}

/* A secret key given inline (key) or in a file (key_file), at most one of them. */
static int read_secret_key(const struct sect *s, const char *key, bool need, uint8_t out[WB_KEY_LEN], bool *has)
{
	config_setting_t *k, *f;
	char file_key[32];
	int ret;

	snprintf(file_key, sizeof(file_key), "%s_file", key);
	ret = member(s, key, K_STRING, &k);
	if (!ret)
		ret = member(s, file_key, K_STRING, &f);
	if (ret)
		return ret;
	*has = k || f;
	if (k && f)
		return report_key(s, f, file_key, "%s%s is set too; keep one of them", s->path, key);
	if (!*has && need)
		return report(s->p, config_setting_is_root(s->set) ? NULL : s->set,
			      "%smissing setting '%s%s' (or '%s%s')", s->scope, s->path, key, s->path, file_key);
	if (!*has)
		return 0;
	if (f)
		return read_key_file(s, f, file_key, out);
	if (!s->p->cfg->inline_secret_line)
		s->p->cfg->inline_secret_line = line_of(k);
	return decode_key(s, k, key, NULL, config_setting_get_string(k), out);
}

static bool prefix_has_host_bits(const struct wb_prefix *p)
{
	int bytes = p->family == AF_INET ? 4 : 16;

	for (int i = 0; i < bytes; i++) {
		int keep = p->len > 8 * i ? p->len - 8 * i : 0;
		uint8_t mask = keep >= 8 ? 0xff : (uint8_t)(0xff00 >> keep);

		if (p->addr[i] & ~mask)
			return true;
	}
	return false;
}

static bool prefix_equal(const struct wb_prefix *a, const struct wb_prefix *b)
{
	return a->family == b->family && a->len == b->len && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

int wb_prefix_parse(struct wb_prefix *p, const char *s)
{
	struct wb_prefix out = { 0 };
	char host[INET6_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	size_t hostlen, lenlen;
	unsigned long len;

	if (!slash || (hostlen = (size_t)(slash - s)) >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hostlen);
	host[hostlen] = '\0';
	if (inet_pton(AF_INET, host, out.addr) == 1)
		out.family = AF_INET;
	else if (inet_pton(AF_INET6, host, out.addr) == 1)
		out.family = AF_INET6;
	else
		return -EINVAL;
	lenlen = strlen(slash + 1);
	if (!lenlen || lenlen > 3 || strspn(slash + 1, "0123456789") != lenlen)
		return -EINVAL;
	len = strtoul(slash + 1, NULL, 10);
	if (len > (out.family == AF_INET ? 32U : 128U))
		return -EINVAL;
	out.len = (uint8_t)len;
	*p = out;
	return 0;
}

/* "10.1.0.0/24", for messages. */
static const char *prefix_text(const struct wb_prefix *p, char buf[INET6_ADDRSTRLEN + 4])
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(p->family, p->addr, addr, sizeof(addr));
	snprintf(buf, INET6_ADDRSTRLEN + 4, "%s/%u", addr, p->len);
	return buf;
}

/*
 * A list of prefixes. Routes must have no host bits set (the kernel refuses
 * 10.2.0.5/24 as a route); addresses keep them (10.255.0.1/30).
 */
static int read_prefixes(const struct sect *s, const char *key, bool routes, struct wb_prefix *out, int max,
			 int *n)
{
	config_setting_t *list;
	int ret = read_list(s, key, !routes, max, &list, n);

	for (int i = 0; !ret && i < *n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
		const char *v = config_setting_get_string(e);

		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return report_key(s, e, key, "expected strings");
		if (wb_prefix_parse(&out[i], v))
			return report_key(s, e, key, "'%s' is not an address with a prefix length (%s)", v,
					  routes ? "10.1.0.0/24, fd00:1::/64" : "10.255.0.1/30, fd00::1/64");
		if (routes && prefix_has_host_bits(&out[i]))
			return report_key(s, e, key, "'%s' has bits set past its prefix length", v);
		for (int j = 0; j < i; j++)
			if (prefix_equal(&out[i], &out[j]))
				return report_key(s, e, key, "'%s' is listed twice", v);
	}
	return ret;
}

/* ---- sections ---- */

static int parse_transport(struct parse *p, const struct sect *root)
{
	static const char *const keys[] = { "congestion_control", "send_buffer_kb", "receive_window_kb",
					    "send_queue_kb", "reorder_hold_ms", "aqm", "aqm_target_ms",
					    "aqm_interval_ms", "pool_limit_mb", NULL };
	struct wb_conf_transport *t = &p->cfg->transport;
	struct sect s = { p, NULL, "", "transport." };
	config_setting_t *g;
	const char *cc = NULL;
	int ret = member(root, "transport", K_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = check_keys(&s, keys)) || (ret = read_string(&s, "congestion_control", false, &cc)) ||
	    (ret = read_u32(&s, "send_buffer_kb", 64, 1024 * 1024, &t->send_buffer_kb)) ||
	    (ret = read_u32(&s, "receive_window_kb", 64, 1024 * 1024, &t->receive_window_kb)) ||
	    (ret = read_u32(&s, "send_queue_kb", 16, 1024 * 1024, &t->send_queue_kb)) ||
	    (ret = read_u32(&s, "reorder_hold_ms", 0, 60000, &t->reorder_hold_ms)) ||
	    (ret = read_bool(&s, "aqm", &t->aqm)) ||
	    (ret = read_u32(&s, "aqm_target_ms", 1, 1000, &t->aqm_target_ms)) ||
	    (ret = read_u32(&s, "aqm_interval_ms", 10, 10000, &t->aqm_interval_ms)) ||
	    (ret = read_u32(&s, "pool_limit_mb", 0, 1024 * 1024, &t->pool_limit_mb)))
		return ret;
	if (cc && strcmp(cc, "bbr") && strcmp(cc, "newreno"))
		return report(p, config_setting_get_member(g, "congestion_control"),
			      "transport.congestion_control: '%s' is none of bbr, newreno", cc);
	if (cc)
		snprintf(t->congestion_control, sizeof(t->congestion_control), "%s", cc);
	return 0;
}

static int parse_scheduler(struct parse *p, const struct sect *root)
{
	static const char *const keys[] = { "policy", "penalise", "penalise_guard", "reinject", "reinject_on_rwnd",
					    "reinject_on_sndbuf", "reinject_on_app_limited", "avoid_blocking", "arrival", NULL };
	struct wb_conf_scheduler *sc = &p->cfg->scheduler;
	struct sect s = { p, NULL, "", "scheduler." };
	config_setting_t *g;
	const char *policy = NULL;
	int ret = member(root, "scheduler", K_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = check_keys(&s, keys)) || (ret = read_string(&s, "policy", false, &policy)))
		return ret;
	if (policy && !wb_sched_exists(policy))
		return report(p, config_setting_get_member(g, "policy"),
			      "scheduler.policy: '%s' is none of default, roundrobin, redundant, first", policy);
	if (policy)
		snprintf(sc->policy, sizeof(sc->policy), "%s", policy);
	/* Every other key is a rule, on unless set false. */
	for (const char *const *k = keys + 1; *k; k++) {
		bool on = true;

		if ((ret = read_bool(&s, *k, &on)))
			return ret;
		if (on)
			sc->off &= ~wb_sched_rule_by_name(*k);
		else
			sc->off |= wb_sched_rule_by_name(*k);
	}
	return 0;
}

static int parse_control(struct parse *p, const struct sect *root)
{
	static const char *const keys[] = { "directory", "group", NULL };
	struct wb_conf_control *c = &p->cfg->control;
	struct sect s = { p, NULL, "", "control." };
	config_setting_t *g;
	const char *dir = NULL, *group = NULL;
	int ret = member(root, "control", K_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = check_keys(&s, keys)) || (ret = read_string(&s, "directory", false, &dir)) ||
	    (ret = read_string(&s, "group", false, &group)))
		return ret;
	if (dir && (dir[0] != '/' || strlen(dir) >= sizeof(c->directory) - WB_NAME_MAX - 6))
		return report(p, config_setting_get_member(g, "directory"),
			      "control.directory: an absolute path of at most %zu characters expected",
			      sizeof(c->directory) - WB_NAME_MAX - 7);
	if (group && (!*group || strlen(group) >= sizeof(c->group)))
		return report(p, config_setting_get_member(g, "group"), "control.group: a group name expected");
	if (dir)
		snprintf(c->directory, sizeof(c->directory), "%s", dir);
	if (group)
		snprintf(c->group, sizeof(c->group), "%s", group);
	return 0;
}

static int parse_timers(struct parse *p, const struct sect *root)
{
	static const char *const keys[] = { "probe_interval_ms", "uplink_timeout_ms", "handshake_retry_ms",
					    "rekey_after_seconds", "rekey_after_messages", NULL };
	struct wb_conf_timers *t = &p->cfg->timers;
	config_setting_t *g;
	struct sect s = { p, NULL, "", "timers." };
	long long messages = (long long)t->rekey_after_messages;
	int ret = member(root, "timers", K_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = check_keys(&s, keys)) ||
	    (ret = read_u32(&s, "probe_interval_ms", 10, 10000, &t->probe_interval_ms)) ||
	    (ret = read_u32(&s, "uplink_timeout_ms", 100, 60000, &t->uplink_timeout_ms)) ||
	    (ret = read_u32(&s, "handshake_retry_ms", 100, 60000, &t->handshake_retry_ms)) ||
	    (ret = read_u32(&s, "rekey_after_seconds", 10, 86400, &t->rekey_after_seconds)) ||
	    (ret = read_range(&s, "rekey_after_messages", 1000, 1LL << 60, &messages)))
		return ret;
	t->rekey_after_messages = (uint64_t)messages;
	/* One lost probe must not take an uplink down. */
	if (t->uplink_timeout_ms < 2 * t->probe_interval_ms) {
		const config_setting_t *at = config_setting_get_member(g, "uplink_timeout_ms");

		return report(p, at ? at : config_setting_get_member(g, "probe_interval_ms"),
			      "timers.uplink_timeout_ms: %u is less than 2 * timers.probe_interval_ms (2 * %u)",
			      t->uplink_timeout_ms, t->probe_interval_ms);
	}
	return 0;
}

static bool has_ipv6(const struct wb_conf_tun *tun)
{
	for (int i = 0; i < tun->n_address; i++)
		if (tun->address[i].family == AF_INET6)
			return true;
	return false;
}

static int check_mtu(const struct sect *s, const struct wb_conf_tun *tun)
{
	const config_setting_t *m = config_setting_get_member(s->set, "mtu");

	if (!tun->mtu)
		return 0;
	if (tun->mtu < MTU_MIN || tun->mtu > WB_MAX_TUN_MTU)
		return report_key(s, m, "mtu",
				  "%u is out of range: 0 (automatic) or %d..%d (a datagram of the tunnel carries at most "
				  "%d bytes)",
				  tun->mtu, MTU_MIN, WB_MAX_TUN_MTU, WB_MAX_DATAGRAM);
	if (tun->mtu < MTU_MIN_IPV6 && has_ipv6(tun))
		return report_key(s, m, "mtu", "%u is below %d, the least IPv6 allows (tun.address has IPv6)",
				  tun->mtu, MTU_MIN_IPV6);
	return 0;
}

/* The TUN device of one bond; its name defaults to "wb-" and the bond's name, cut to 15 characters. */
static int parse_tun(const struct sect *parent, const char *bond, struct wb_conf_tun *tun)
{
	static const char *const keys[] = { "name", "address", "mtu", NULL };
	struct sect s = { parent->p, NULL, parent->scope, "tun." };
	config_setting_t *g;
	const char *name;
	int ret = required(parent, "tun", K_GROUP, &g);

	if (ret)
		return ret;
	s.set = g;
	if ((ret = check_keys(&s, keys)) || (ret = read_string(&s, "name", false, &name)))
		return ret;
	if (name && (ret = check_ifname(&s, config_setting_get_member(g, "name"), "tun name", name)))
		return ret;
	if (name)
		strcpy(tun->name, name);
	else if (snprintf(tun->name, sizeof(tun->name), "wb-%s", bond) < 0)
		return -EINVAL;
	if ((ret = read_prefixes(&s, "address", false, tun->address, WB_MAX_ADDRESSES, &tun->n_address)) ||
	    (ret = read_u32(&s, "mtu", 0, UINT16_MAX, &tun->mtu)))
		return ret;
	return check_mtu(&s, tun);
}

/* The peer's keys, TUN and routes, common to a client's server and a server's peers. */
static int parse_bond(const struct sect *s, const struct sect *tun_parent, struct wb_conf_peer *peer)
{
	int ret = read_public_key(s, "public_key", peer->public_key);

	if (!ret)
		ret = read_secret_key(s, "preshared_key", false, peer->preshared_key, &peer->has_preshared_key);
	if (!ret)
		ret = parse_tun(tun_parent, peer->name, &peer->tun);
	if (!ret)
		ret = read_prefixes(tun_parent, "routes", true, peer->routes, WB_MAX_ROUTES, &peer->n_routes);
	return ret;
}

/* A group in a list whose scope is "KIND 'NAME': " once the name is known, "KIND #N: " before. */
static int list_entry(struct sect *s, config_setting_t *g, const char *kind, int index, char *scope,
		      size_t size, char name[WB_NAME_MAX], const char *const *keys)
{
	config_setting_t *m;
	int ret;

	snprintf(scope, size, "%s #%d: ", kind, index + 1);
	s->scope = scope;
	s->set = g;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return report(s->p, g, "%sexpected %s", scope, kind_text[K_GROUP]);
	/* Without a name, a typo such as "nmae" is the better message. */
	ret = member(s, "name", K_STRING, &m);
	if (!ret && !m)
		ret = check_keys(s, keys);
	if (!ret)
		ret = read_name(s, "name", name);
	if (ret)
		return ret;
	snprintf(scope, size, "%s '%s': ", kind, name);
	return check_keys(s, keys);
}

static int parse_peer(struct parse *p, config_setting_t *g, int index)
{
	static const char *const keys[] = { "name", "public_key", "preshared_key", "preshared_key_file", "tun",
					    "routes", NULL };
	struct wb_conf_peer *peer = &p->cfg->peers[index];
	struct sect s = { p, NULL, "", "" };
	char scope[64];
	int ret = list_entry(&s, g, "peer", index, scope, sizeof(scope), peer->name, keys);

	if (ret)
		return ret;
	peer->line = line_of(g);
	return parse_bond(&s, &s, peer);
}

/*
 * table: a policy rule sends what carries the uplink's mark to that routing
 * table (which the system fills, e.g. netifd's ip4table); it needs a mark,
 * and keeps clear of the tables every system has.
 */
static int read_policy_rule(const struct sect *s, struct wb_conf_uplink *up)
{
	long long table = 0, priority = 0;
	config_setting_t *at;
	int ret;

	if ((ret = read_range(s, "table", 1, UINT32_MAX, &table)) ||
	    (ret = read_range(s, "rule_priority", 1, 32765, &priority)))
		return ret;
	at = config_setting_get_member(s->set, "table");
	if (table && !up->has_fwmark)
		return report_key(s, at, "table", "a policy rule needs the uplink's fwmark");
	if (table >= 253 && table <= 255)
		return report_key(s, at, "table", "%lld is the system's (default, main, local)", table);
	if (priority && !table)
		return report_key(s, config_setting_get_member(s->set, "rule_priority"), "rule_priority",
				  "without a table there is no rule");
	up->table = (uint32_t)table;
	up->rule_priority = (uint32_t)priority;
	return 0;
}

static int read_uplink_binding(const struct sect *s, struct wb_conf_uplink *up)
{
	config_setting_t *ifname, *source;
	long long fwmark = 0;
	char why[WB_WHY_MAX];
	int ret;

	if ((ret = member(s, "interface", K_STRING, &ifname)) || (ret = member(s, "source", K_STRING, &source)) ||
	    (ret = read_checked(s, "fwmark", wb_validate_fwmark, &fwmark)))
		return ret;
	if (ifname && (ret = check_ifname(s, ifname, "interface name", config_setting_get_string(ifname))))
		return ret;
	if (ifname)
		strcpy(up->interface, config_setting_get_string(ifname));
	if (source && wb_validate_source(&up->source, config_setting_get_string(source), why, sizeof(why)))
		return report_key(s, source, "source", "%s", why);
	up->fwmark = (uint32_t)fwmark;
	up->has_fwmark = fwmark != 0;
	if ((ret = read_policy_rule(s, up)))
		return ret;
	if (wb_validate_binding(ifname != NULL, source != NULL, up->has_fwmark, why, sizeof(why)))
		return report(s->p, s->set, "%s%s", s->scope, why);
	return 0;
}

static int parse_uplink(struct parse *p, config_setting_t *g, int index)
{
	static const char *const keys[] = { "name",	  "interface", "source", "fwmark", "table",
					    "rule_priority", "weight",    "backup", NULL };
	struct wb_conf_uplink *up = &p->cfg->uplinks[index];
	struct sect s = { p, NULL, "", "" };
	long long weight = WB_WEIGHT_DEFAULT;
	char scope[64];
	int ret = list_entry(&s, g, "uplink", index, scope, sizeof(scope), up->name, keys);

	up->line = line_of(g);
	if (ret || (ret = read_uplink_binding(&s, up)) ||
	    (ret = read_checked(&s, "weight", wb_validate_weight, &weight)))
		return ret;
	up->weight = (uint32_t)weight;
	if (up->table && !up->rule_priority)
		up->rule_priority = WB_RULE_PRIORITY_BASE + (uint32_t)index;
	return read_bool(&s, "backup", &up->backup);
}

/* Two uplinks bound the same way would be one path twice. */
#define BOUND_ALIKE "the same interface, source and fwmark as uplink '%s'"

static bool same_binding(const struct wb_conf_uplink *a, const struct wb_conf_uplink *b)
{
	return !strcmp(a->interface, b->interface) && a->fwmark == b->fwmark &&
	       !memcmp(&a->source, &b->source, sizeof(a->source));
}

/* Uplinks are told apart by name and by how their socket is bound; u is the later one. */
static int check_uplinks_apart(struct parse *p, const struct wb_conf_uplink *u, const struct wb_conf_uplink *v)
{
	if (!strcmp(u->name, v->name))
		return report_line(p, u->line, "uplink '%s': the name is used twice (first on line %d)", u->name,
				   v->line);
	if (same_binding(u, v))
		return report_line(p, u->line, "uplink '%s': " BOUND_ALIKE, u->name, v->name);
	return 0;
}

static int check_uplinks(struct parse *p)
{
	const struct wb_config *cfg = p->cfg;
	int backups = 0, ret = 0;

	for (int i = 0; !ret && i < cfg->n_uplinks; i++) {
		backups += cfg->uplinks[i].backup;
		for (int j = 0; !ret && j < i; j++)
			ret = check_uplinks_apart(p, &cfg->uplinks[i], &cfg->uplinks[j]);
	}
	if (!ret && backups == cfg->n_uplinks)
		ret = report_line(p, cfg->uplinks[0].line, "uplinks: all are backups; one at least must not be");
	return ret;
}

static int parse_uplinks(struct parse *p, const struct sect *root)
{
	config_setting_t *list;
	int ret = read_list(root, "uplinks", true, WB_MAX_UPLINKS, &list, &p->cfg->n_uplinks);

	for (int i = 0; !ret && i < p->cfg->n_uplinks; i++)
		ret = parse_uplink(p, config_setting_get_elem(list, (unsigned)i), i);
	return ret ? ret : check_uplinks(p);
}

/* Where a client sends: the server's address literal (no DNS) and port. */
static int parse_endpoint(const struct sect *s, bool need_address, const char *default_address,
			  struct sockaddr_storage *ss)
{
	const char *addr;
	uint32_t port = DEFAULT_PORT;
	char why[WB_WHY_MAX];
	int ret = read_string(s, "address", need_address, &addr);

	if (!ret)
		ret = read_u32(s, "port", 1, 65535, &port);
	if (ret)
		return ret;
	if (wb_validate_address(ss, addr ? addr : default_address, AF_UNSPEC, (uint16_t)port, why, sizeof(why)))
		return report_key(s, config_setting_get_member(s->set, "address"), "address", "%s", why);
	return 0;
}

static int parse_client(struct parse *p, const struct sect *root)
{
	static const char *const keys[] = { "address", "port", "public_key", "preshared_key",
					    "preshared_key_file", NULL };
	struct wb_config *cfg = p->cfg;
	struct wb_conf_peer *peer = &cfg->peers[0];
	struct sect s = { p, NULL, "", "server." };
	config_setting_t *g;
	int ret = required(root, "server", K_GROUP, &g);

	if (ret)
		return ret;
	s.set = g;
	strcpy(peer->name, cfg->name);
	peer->line = line_of(g);
	cfg->n_peers = 1;
	if ((ret = check_keys(&s, keys)) || (ret = parse_endpoint(&s, true, NULL, &cfg->server)) ||
	    (ret = parse_bond(&s, root, peer)))
		return ret;
	return parse_uplinks(p, root);
}

static int check_routes_apart(struct parse *p, const struct wb_conf_peer *a, const struct wb_conf_peer *b)
{
	char text[INET6_ADDRSTRLEN + 4];

	for (int i = 0; i < a->n_routes; i++)
		for (int j = 0; j < b->n_routes; j++)
			if (prefix_equal(&a->routes[i], &b->routes[j]))
				return report_line(p, a->line, "peer '%s': routes: '%s' is routed to peer '%s' too",
						   a->name, prefix_text(&a->routes[i], text), b->name);
	return 0;
}

/* Names, keys, TUN names and routes are each one peer's own; a is the later of the two. */
static int check_peers_apart(struct parse *p, const struct wb_conf_peer *a, const struct wb_conf_peer *b)
{
	if (!strcmp(a->name, b->name))
		return report_line(p, a->line, "peer '%s': the name is used twice (first on line %d)", a->name,
				   b->line);
	if (!memcmp(a->public_key, b->public_key, WB_KEY_LEN))
		return report_line(p, a->line, "peer '%s': public_key: the same as peer '%s''s", a->name, b->name);
	if (!strcmp(a->tun.name, b->tun.name))
		return report_line(p, a->line, "peer '%s': tun name '%s' is peer '%s''s too; set tun.name", a->name,
				   a->tun.name, b->name);
	return check_routes_apart(p, a, b);
}

static int parse_server(struct parse *p, const struct sect *root)
{
	static const char *const keys[] = { "address", "port", NULL };
	struct wb_config *cfg = p->cfg;
	struct sect s = { p, NULL, "", "listen." };
	config_setting_t *g, *list;
	int ret = member(root, "listen", K_GROUP, &g);

	if (!ret && g) {
		s.set = g;
		ret = check_keys(&s, keys);
	}
	if (!ret)
		ret = g ? parse_endpoint(&s, false, "::", &cfg->listen)
			: wb_validate_address(&cfg->listen, "::", AF_INET6, DEFAULT_PORT, NULL, 0);
	if (!ret)
		ret = read_list(root, "peers", true, WB_MAX_PEERS, &list, &cfg->n_peers);
	for (int i = 0; !ret && i < cfg->n_peers; i++)
		ret = parse_peer(p, config_setting_get_elem(list, (unsigned)i), i);
	for (int i = 0; !ret && i < cfg->n_peers; i++)
		for (int j = 0; !ret && j < i; j++)
			ret = check_peers_apart(p, &cfg->peers[i], &cfg->peers[j]);
	return ret;
}

/* A peer with our own key would be a handshake with ourselves: a copy-paste slip. */
static int check_own_key(struct parse *p)
{
	const struct wb_config *cfg = p->cfg;
	uint8_t priv[WB_KEY_LEN], pub[WB_KEY_LEN];
	int ret;

	memcpy(priv, cfg->private_key, WB_KEY_LEN);
	wb_x25519_clamp(priv);
	ret = wb_x25519_public(pub, priv);
	wb_wipe(priv, sizeof(priv));
	if (ret)
		return report(p, NULL, "private_key: cannot derive its public key (%s)", strerror(-ret));
	for (int i = 0; i < cfg->n_peers; i++) {
		const struct wb_conf_peer *peer = &cfg->peers[i];

		if (memcmp(pub, peer->public_key, WB_KEY_LEN))
			continue;
		if (cfg->role == WB_ROLE_CLIENT)
			return report_line(p, peer->line,
					   "server.public_key: our own public key, not the server's");
		return report_line(p, peer->line, "peer '%s': public_key: our own public key, not the peer's",
				   peer->name);
	}
	return 0;
}

static const char *const common_keys[] = { "role", "name", "private_key", "private_key_file", "cipher",
					   "timers", "transport", "scheduler", "control", NULL };
static const char *const client_keys[] = { "server", "tun", "routes", "uplinks", NULL };
static const char *const server_keys[] = { "listen", "peers", NULL };

/* Unknown top-level settings, and those of the other role, named as such. */
static int check_root_keys(struct parse *p, const config_setting_t *root)
{
	bool client = p->cfg->role == WB_ROLE_CLIENT;

	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *m = config_setting_get_elem(root, (unsigned)i);
		const char *name = config_setting_name(m);

		if (in_list(name, common_keys) || in_list(name, client ? client_keys : server_keys))
			continue;
		if (in_list(name, client ? server_keys : client_keys))
			return report(p, m, "'%s' is not allowed with role = \"%s\"", name,
				      client ? "client" : "server");
		return report(p, m, "unknown setting '%s'", name);
	}
	return 0;
}

static int parse_role(struct parse *p, const struct sect *root)
{
	const char *role;
	int ret = read_string(root, "role", true, &role);

	if (ret)
		return ret;
	if (!strcmp(role, "client"))
		p->cfg->role = WB_ROLE_CLIENT;
	else if (!strcmp(role, "server"))
		p->cfg->role = WB_ROLE_SERVER;
	else
		return report(p, config_setting_get_member(root->set, "role"),
			      "role: '%s' is neither \"client\" nor \"server\"", role);
	return 0;
}

static int parse_cipher(struct parse *p, const struct sect *root)
{
	const char *name;
	int ret = read_string(root, "cipher", false, &name);

	if (ret || !name)
		return ret;
	if (wb_cipher_from_name(name, &p->cfg->cipher))
		return report(p, config_setting_get_member(root->set, "cipher"),
			      "cipher: '%s' is neither \"chacha20-poly1305\" nor \"aes-256-gcm\"", name);
	return 0;
}

static int parse_root(struct parse *p, const config_setting_t *set)
{
	struct wb_config *cfg = p->cfg;
	struct sect root = { p, set, "", "" };
	bool has_key;
	int ret;

	if ((ret = parse_role(p, &root)) || (ret = check_root_keys(p, set)) ||
	    (ret = read_name(&root, "name", cfg->name)) ||
	    (ret = read_secret_key(&root, "private_key", true, cfg->private_key, &has_key)) ||
	    (ret = parse_cipher(p, &root)) || (ret = parse_timers(p, &root)) ||
	    (ret = parse_transport(p, &root)) || (ret = parse_scheduler(p, &root)) ||
	    (ret = parse_control(p, &root)))
		return ret;
	ret = cfg->role == WB_ROLE_CLIENT ? parse_client(p, &root) : parse_server(p, &root);
	return ret ? ret : check_own_key(p);
}

static void wipe_string(const config_setting_t *s)
{
	/* libconfig frees its strings without wiping them; ours hold keys. */
	if (s && config_setting_type(s) == CONFIG_TYPE_STRING) {
		char *v = (char *)config_setting_get_string(s);

		wb_wipe(v, strlen(v));
	}
}

static const config_setting_t *group_member(const config_setting_t *g, const char *key)
{
	return g && config_setting_type(g) == CONFIG_TYPE_GROUP ? config_setting_get_member(g, key) : NULL;
}

static void wipe_secrets(config_t *lc)
{
	const config_setting_t *root = config_root_setting(lc), *peers = group_member(root, "peers");

	wipe_string(group_member(root, "private_key"));
	wipe_string(group_member(group_member(root, "server"), "preshared_key"));
	if (peers && config_setting_is_list(peers))
		for (int i = 0; i < config_setting_length(peers); i++)
			wipe_string(group_member(config_setting_get_elem(peers, (unsigned)i), "preshared_key"));
}

static void set_defaults(struct wb_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cipher = WB_CIPHER_CHACHA20_POLY1305;
	cfg->timers = default_timers;
	cfg->transport = (struct wb_conf_transport){ .congestion_control = "bbr", .send_buffer_kb = 6144,
						      .receive_window_kb = 6144, .send_queue_kb = 4096,
						      .aqm = true, .aqm_target_ms = 5, .aqm_interval_ms = 100 };
	cfg->scheduler = (struct wb_conf_scheduler){ .policy = "default" };
	cfg->control = (struct wb_conf_control){ .directory = WB_CONTROL_DIR };
}

int wb_config_parse(struct wb_config *cfg, const char *text, const char *name, char *err, size_t errlen)
{
	struct parse p = { cfg, name, err, errlen };
	config_t lc;
	int ret;

	set_defaults(cfg);
	if (err && errlen)
		err[0] = '\0';
	if (strlen(name) >= sizeof(cfg->path))
		return report(&p, NULL, "the file name is longer than %zu characters", sizeof(cfg->path) - 1);
	strcpy(cfg->path, name);
	ret = prescan(&p, text);
	if (ret)
		return ret;
	config_init(&lc);
	if (!config_read_string(&lc, text))
		ret = report_line(&p, config_error_line(&lc), "%s", config_error_text(&lc));
	else
		ret = parse_root(&p, config_root_setting(&lc));
	wipe_secrets(&lc);
	config_destroy(&lc);
	if (ret)
		wb_wipe(cfg, sizeof(*cfg));
	return ret;
}

/*
 * A buffer twice as large, the text copied: realloc() would free the old one
 * unwiped, and the text may hold keys.
 */
static char *grow_wiping(char *buf, size_t len, size_t cap)
{
	char *nb = malloc(cap);

	if (nb)
		memcpy(nb, buf, len);
	wb_wipe(buf, len);
	free(buf);
	return nb;
}

/* The whole file, NUL-terminated, and its mode; the caller wipes (it may hold keys) and frees it. */
static int slurp_file(const char *path, char **out, size_t *outlen, mode_t *mode)
{
	struct stat st;
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), ret = 0;

	if (fd < 0 || !buf) {
		ret = fd < 0 ? -errno : -ENOMEM;
		goto fail;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 < cap)
			continue;
		if (cap >= MAX_FILE_SIZE) {
			ret = -EFBIG;
			goto fail;
		}
		buf = grow_wiping(buf, len, cap *= 2);
		if (!buf) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	if (n < 0) {
		ret = -errno;
		goto fail;
	}
	*mode = fstat(fd, &st) ? 0 : st.st_mode;
	close(fd);
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	if (buf)
		wb_wipe(buf, len);
	free(buf);
	return ret;
}

int wb_config_load(struct wb_config *cfg, const char *path, char *err, size_t errlen)
{
	struct parse p = { cfg, path, err, errlen };
	char *text = NULL;
	size_t len = 0;
	mode_t mode = 0;
	int ret = slurp_file(path, &text, &len, &mode);

	if (ret) {
		set_defaults(cfg);
		if (ret == -EFBIG)
			report(&p, NULL, "cannot read: larger than %d bytes", MAX_FILE_SIZE);
		else
			report(&p, NULL, "cannot read: %s", strerror(-ret));
		return ret;
	}
	if (strlen(text) != len) {
		set_defaults(cfg);
		ret = report(&p, NULL, "a NUL byte: this is not a text file");
	} else {
		ret = wb_config_parse(cfg, text, path, err, errlen);
	}
	if (!ret && cfg->inline_secret_line && others_can_read(mode))
		warn(&p, cfg->inline_secret_line,
		     "group or others can read this file (mode %04o), which holds a secret key: chmod 600 it, or put "
		     "the key in a file of its own (private_key_file, preshared_key_file)",
		     (unsigned)(mode & 07777));
	wb_wipe(text, len);
	free(text);
	return ret;
}

static int runtime_error(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int runtime_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Another of cfg's uplinks bound as up is; a free slot has no name, and a name taken is the bond's to say. */
static const struct wb_conf_uplink *bound_alike(const struct wb_config *cfg, const struct wb_conf_uplink *up)
{
	for (int i = 0; i < cfg->n_uplinks; i++) {
		const struct wb_conf_uplink *other = &cfg->uplinks[i];

		if (other->name[0] && strcmp(other->name, up->name) && same_binding(up, other))
			return other;
	}
	return NULL;
}

int wb_config_runtime_uplink(struct wb_conf_uplink *up, const struct wb_config *cfg, const char *name,
			     const char *ifname, const char *source, uint32_t fwmark, bool backup, uint32_t weight,
			     char *err, size_t errlen)
{
	const struct wb_conf_uplink *other;
	char why[WB_WHY_MAX];

	memset(up, 0, sizeof(*up));
	if (wb_validate_name(name, why, sizeof(why)))
		return runtime_error(err, errlen, "uplink name: %s", why);
	if (ifname && wb_validate_ifname(ifname, why, sizeof(why)))
		return runtime_error(err, errlen, "uplink '%s': interface name %s", name, why);
	if (source && wb_validate_source(&up->source, source, why, sizeof(why)))
		return runtime_error(err, errlen, "uplink '%s': source: %s", name, why);
	if (wb_validate_binding(ifname != NULL, source != NULL, fwmark != 0, why, sizeof(why)))
		return runtime_error(err, errlen, "uplink '%s': %s", name, why);
	if (wb_validate_weight(weight, why, sizeof(why)))
		return runtime_error(err, errlen, "uplink '%s': weight: %s", name, why);
	snprintf(up->name, sizeof(up->name), "%s", name);
	if (ifname)
		snprintf(up->interface, sizeof(up->interface), "%s", ifname);
	up->fwmark = fwmark;
	up->has_fwmark = fwmark != 0;
	up->backup = backup;
	up->weight = weight;
	other = bound_alike(cfg, up);
	if (other)
		return runtime_error(err, errlen, "uplink '%s': " BOUND_ALIKE, name, other->name);
	return 0;
}
