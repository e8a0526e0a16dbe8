// SPDX-License-Identifier: MIT
/*
 * The configuration file: libconfig text into a validated struct wb_config.
 *
 * Everything is checked while it is read, once, so the rest of the daemon
 * can trust the struct: types, ranges, unknown settings (a typo must not be
 * ignored), duplicates, settings of the other role. Every message is
 * "FILE:LINE: what" and names the setting, as docs/configuration.md shows.
 * Only the libconfig 1.5 API is used (Debian 12 has 1.5, OpenWrt ships 1.8).
 *
 * Here: the file read and its secrets wiped. The text goes through the
 * pre-scanner (config_prescan.c), then libconfig, then the schema
 * (config_schema.c), which reads each setting with a typed reader
 * (config_read.c), the flat groups through their tables (config_groups.c,
 * config_table.c), and checks the values the control socket and the CLI
 * take too with their validators (lib/validate.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_prescan.h"
#include "config_read.h"
#include "config_schema.h"

#define MAX_FILE_SIZE (1 << 20) /* a config is a few kB; this only bounds a mistake */

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

int wb_config_parse(struct wb_config *cfg, const char *text, const char *name, char *err, size_t errlen)
{
	struct conf_parse p = { cfg, name, err, errlen };
	config_t lc;
	int ret;

	conf_schema_defaults(cfg);
	if (err && errlen)
		err[0] = '\0';
	if (strlen(name) >= sizeof(cfg->path))
		return conf_report(&p, NULL, "the file name is longer than %zu characters", sizeof(cfg->path) - 1);
	strcpy(cfg->path, name);
	ret = conf_prescan(&p, text);
	if (ret)
		return ret;
	config_init(&lc);
	if (!config_read_string(&lc, text))
		ret = conf_report_line(&p, config_error_line(&lc), "%s", config_error_text(&lc));
	else
		ret = conf_schema_read(&p, config_root_setting(&lc));
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
	struct conf_parse p = { cfg, path, err, errlen };
	char *text = NULL;
	size_t len = 0;
	mode_t mode = 0;
	int ret = slurp_file(path, &text, &len, &mode);

	if (ret) {
		conf_schema_defaults(cfg);
		if (ret == -EFBIG)
			conf_report(&p, NULL, "cannot read: larger than %d bytes", MAX_FILE_SIZE);
		else
			conf_report(&p, NULL, "cannot read: %s", strerror(-ret));
		return ret;
	}
	if (strlen(text) != len) {
		conf_schema_defaults(cfg);
		ret = conf_report(&p, NULL, "a NUL byte: this is not a text file");
	} else {
		ret = wb_config_parse(cfg, text, path, err, errlen);
	}
	if (!ret && cfg->inline_secret_line && conf_others_can_read(mode))
		conf_warn(&p, cfg->inline_secret_line,
			  "group or others can read this file (mode %04o), which holds a secret key: chmod 600 it, or put "
			  "the key in a file of its own (private_key_file, preshared_key_file)",
			  (unsigned)(mode & 07777));
	wb_wipe(text, len);
	free(text);
	return ret;
}
