// SPDX-License-Identifier: MIT
/*
 * The configuration file's typed readers (config_read.h): each takes a
 * setting of the kind it expects, checks it, and otherwise says what is
 * wrong as "FILE:LINE: what", naming the setting.
 */
#include "config_read.h"
#include "example_keys.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "validate.h"

#define KEY_FILE_MAX 128 /* a key file holds 44 characters and a newline */

const char *const conf_kind_text[] = {
	[CONF_STRING] = "a string",
	[CONF_INT] = "an integer",
	[CONF_BOOL] = "true or false",
	[CONF_GROUP] = "a group { ... }",
	[CONF_LIST] = "a list [ ... ]",
};

/* ---- messages ---- */

static int vreport(struct conf_parse *p, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Writes "FILE:LINE: what" (or "FILE: what" when line is 0) and returns -EINVAL. */
static int vreport(struct conf_parse *p, int line, const char *fmt, va_list ap)
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

int conf_report_line(struct conf_parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(p, line, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int conf_line_of(const config_setting_t *s)
{
	for (; s; s = config_setting_parent(s))
		if (config_setting_source_line(s))
			return config_setting_source_line(s);
	return 0;
}

int conf_report(struct conf_parse *p, const config_setting_t *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(p, at ? conf_line_of(at) : 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int conf_report_key(const struct conf_sect *s, const config_setting_t *at, const char *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return conf_report(s->p, at, "%s%s%s: %s", s->scope, s->path, key, what);
}

void conf_warn(struct conf_parse *p, int line, const char *fmt, ...)
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

bool conf_others_can_read(mode_t mode)
{
	return (mode & (S_IRGRP | S_IROTH)) != 0;
}

/* ---- typed settings ---- */

static bool is_kind(const config_setting_t *s, enum conf_kind k)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		return k == CONF_STRING;
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return k == CONF_INT;
	case CONFIG_TYPE_BOOL:
		return k == CONF_BOOL;
	case CONFIG_TYPE_GROUP:
		return k == CONF_GROUP;
	case CONFIG_TYPE_ARRAY:
	case CONFIG_TYPE_LIST:
		return k == CONF_LIST;
	default:
		return false;
	}
}

int conf_member(const struct conf_sect *s, const char *key, enum conf_kind k, config_setting_t **out)
{
	config_setting_t *m = config_setting_get_member(s->set, key);

	*out = m;
	if (m && !is_kind(m, k))
		return conf_report_key(s, m, key, "expected %s", conf_kind_text[k]);
	return 0;
}

/* A missing setting: at the top level no line applies, inside a group the group's. */
static int missing(const struct conf_sect *s, const char *key)
{
	const config_setting_t *at = config_setting_is_root(s->set) ? NULL : s->set;

	return conf_report(s->p, at, "%smissing setting '%s%s'", s->scope, s->path, key);
}

int conf_required(const struct conf_sect *s, const char *key, enum conf_kind k, config_setting_t **out)
{
	int ret = conf_member(s, key, k, out);

	if (!ret && !*out)
		return missing(s, key);
	return ret;
}

int conf_read_string(const struct conf_sect *s, const char *key, bool need, const char **out)
{
	config_setting_t *m;
	int ret = need ? conf_required(s, key, CONF_STRING, &m) : conf_member(s, key, CONF_STRING, &m);

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

int conf_read_range(const struct conf_sect *s, const char *key, long long lo, long long hi, long long *v)
{
	config_setting_t *m;
	int ret = conf_member(s, key, CONF_INT, &m);

	if (ret || !m)
		return ret;
	*v = int_value(m);
	if (*v < lo || *v > hi)
		return conf_report_key(s, m, key, "%lld is out of range %lld..%lld", *v, lo, hi);
	return 0;
}

int conf_read_u32(const struct conf_sect *s, const char *key, uint32_t lo, uint32_t hi, uint32_t *out)
{
	long long v = *out;
	int ret = conf_read_range(s, key, lo, hi, &v);

	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

int conf_read_checked(const struct conf_sect *s, const char *key, int (*check)(long long, char *, size_t),
			long long *v)
{
	config_setting_t *m;
	char why[WB_WHY_MAX];
	int ret = conf_member(s, key, CONF_INT, &m);

	if (ret || !m)
		return ret;
	*v = int_value(m);
	if (check(*v, why, sizeof(why)))
		return conf_report_key(s, m, key, "%s", why);
	return 0;
}

int conf_read_bool(const struct conf_sect *s, const char *key, bool *out)
{
	config_setting_t *m;
	int ret = conf_member(s, key, CONF_BOOL, &m);

	if (!ret && m)
		*out = config_setting_get_bool(m);
	return ret;
}

bool conf_in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

int conf_report_unknown(const struct conf_sect *s, const config_setting_t *m)
{
	return conf_report(s->p, m, "%sunknown setting '%s%s'", s->scope, s->path, config_setting_name(m));
}

int conf_check_keys(const struct conf_sect *s, const char *const *known)
{
	for (int i = 0; i < config_setting_length(s->set); i++) {
		const config_setting_t *m = config_setting_get_elem(s->set, (unsigned)i);

		if (!conf_in_list(config_setting_name(m), known))
			return conf_report_unknown(s, m);
	}
	return 0;
}

int conf_read_list(const struct conf_sect *s, const char *key, bool need, int max, config_setting_t **out, int *n)
{
	int ret = need ? conf_required(s, key, CONF_LIST, out) : conf_member(s, key, CONF_LIST, out);

	*n = *out ? config_setting_length(*out) : 0;
	if (ret || !*out)
		return ret;
	if (need && *n == 0)
		return conf_report_key(s, *out, key, "the list is empty");
	if (*n > max)
		return conf_report_key(s, *out, key, "%d entries, at most %d", *n, max);
	return 0;
}

/* ---- values ---- */

int conf_read_name(const struct conf_sect *s, const char *key, char out[WB_NAME_MAX])
{
	config_setting_t *m;
	char why[WB_WHY_MAX];
	int ret = conf_required(s, key, CONF_STRING, &m);

	if (!ret && wb_validate_name(config_setting_get_string(m), why, sizeof(why)))
		ret = conf_report_key(s, m, key, "%s", why);
	if (!ret)
		strcpy(out, config_setting_get_string(m));
	return ret;
}

int conf_check_ifname(const struct conf_sect *s, const config_setting_t *at, const char *what, const char *v)
{
	char why[WB_WHY_MAX];

	if (wb_validate_ifname(v, why, sizeof(why)))
		return conf_report(s->p, at, "%s%s %s", s->scope, what, why);
	return 0;
}

static bool all_zero(const uint8_t *b, size_t len)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < len; i++)
		acc |= b[i];
	return !acc;
}

#define EXAMPLE_KEY_TEXT                                                                              \
	"an example key printed in wanbond's documentation, known to everyone: make your own "           \
	"(wanbondd --genkey and --pubkey, docs/configuration.md)"

/* A base64 key, given inline or (file not NULL) read from a file; never an all-zero or an example key. */
static int decode_key(const struct conf_sect *s, const config_setting_t *at, const char *key, const char *file,
		      const char *text, uint8_t out[WB_KEY_LEN])
{
	if (wb_key_from_base64(out, text))
		return file ? conf_report_key(s, at, key, "'%s' does not hold a base64 key of 32 bytes", file)
			    : conf_report_key(s, at, key, "not a base64 key of 32 bytes");
	if (all_zero(out, WB_KEY_LEN))
		return file ? conf_report_key(s, at, key, "'%s' holds a key of all zeros", file)
			    : conf_report_key(s, at, key, "the key is all zeros");
	if (wb_key_is_example(out))
		return file ? conf_report_key(s, at, key, "'%s' holds %s", file, EXAMPLE_KEY_TEXT)
			    : conf_report_key(s, at, key, "%s", EXAMPLE_KEY_TEXT);
	return 0;
}

int conf_read_public_key(const struct conf_sect *s, const char *key, uint8_t out[WB_KEY_LEN])
{
	config_setting_t *m;
	int ret = conf_required(s, key, CONF_STRING, &m);

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

static int read_key_file(const struct conf_sect *s, const config_setting_t *at, const char *key,
			 uint8_t out[WB_KEY_LEN])
{
	const char *path = config_setting_get_string(at), *why;
	char buf[KEY_FILE_MAX + 2];
	mode_t mode = 0;
	int ret = slurp_key_file(path, buf, KEY_FILE_MAX, &why, &mode);

	if (ret)
		conf_report_key(s, at, key, "cannot read '%s': %s", path, why ? why : strerror(-ret));
	else
		ret = decode_key(s, at, key, path, buf, out);
	if (!ret && conf_others_can_read(mode))
		conf_warn(s->p, conf_line_of(at), "%s%s%s: group or others can read '%s' (mode %04o), which holds a secret key: "
			  "chmod 600 it", s->scope, s->path, key, path, (unsigned)(mode & 07777));
	wb_wipe(buf, sizeof(buf));
	return ret;
}

int conf_read_secret_key(const struct conf_sect *s, const char *key, bool need, uint8_t out[WB_KEY_LEN], bool *has)
{
	config_setting_t *k, *f;
	char file_key[32];
	int ret;

	snprintf(file_key, sizeof(file_key), "%s_file", key);
	ret = conf_member(s, key, CONF_STRING, &k);
	if (!ret)
		ret = conf_member(s, file_key, CONF_STRING, &f);
	if (ret)
		return ret;
	*has = k || f;
	if (k && f)
		return conf_report_key(s, f, file_key, "%s%s is set too; keep one of them", s->path, key);
	if (!*has && need)
		return conf_report(s->p, config_setting_is_root(s->set) ? NULL : s->set,
				   "%smissing setting '%s%s' (or '%s%s')", s->scope, s->path, key, s->path, file_key);
	if (!*has)
		return 0;
	if (f)
		return read_key_file(s, f, file_key, out);
	if (!s->p->cfg->inline_secret_line)
		s->p->cfg->inline_secret_line = conf_line_of(k);
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

bool conf_prefix_equal(const struct wb_prefix *a, const struct wb_prefix *b)
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

const char *conf_prefix_text(const struct wb_prefix *p, char buf[INET6_ADDRSTRLEN + 4])
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(p->family, p->addr, addr, sizeof(addr));
	snprintf(buf, INET6_ADDRSTRLEN + 4, "%s/%u", addr, p->len);
	return buf;
}

int conf_read_prefixes(const struct conf_sect *s, const char *key, bool routes, struct wb_prefix *out, int max,
			 int *n)
{
	config_setting_t *list;
	int ret = conf_read_list(s, key, !routes, max, &list, n);

	for (int i = 0; !ret && i < *n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
		const char *v = config_setting_get_string(e);

		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return conf_report_key(s, e, key, "expected strings");
		if (wb_prefix_parse(&out[i], v))
			return conf_report_key(s, e, key, "'%s' is not an address with a prefix length (%s)", v,
					       routes ? "10.1.0.0/24, fd00:1::/64" : "10.255.0.1/30, fd00::1/64");
		if (routes && prefix_has_host_bits(&out[i]))
			return conf_report_key(s, e, key, "'%s' has bits set past its prefix length", v);
		for (int j = 0; j < i; j++)
			if (conf_prefix_equal(&out[i], &out[j]))
				return conf_report_key(s, e, key, "'%s' is listed twice", v);
	}
	return ret;
}
