// SPDX-License-Identifier: MIT
/* The CLI's arguments (cli_args.h). */
#include "cli_args.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

#define CMD(c) (1u << (c))
#define SET_FORMS (CMD(CLI_UPLINK_SET) | CMD(CLI_UPLINK_HOTPLUG))

enum word { W_BOND, W_DEV, W_SOURCE, W_FWMARK, W_BACKUP, W_WEIGHT, W_UP, W_DOWN, W_COUNT };

/* The words after an uplink's name, whether each takes a value, and the commands that take it. */
static const struct {
	const char *text;
	bool value;
	unsigned cmds;
} words[W_COUNT] = {
	[W_BOND] = { "bond", true, SET_FORMS | CMD(CLI_UPLINK_ADD) | CMD(CLI_UPLINK_DEL) },
	[W_DEV] = { "dev", true, SET_FORMS | CMD(CLI_UPLINK_ADD) },
	[W_SOURCE] = { "source", true, CMD(CLI_UPLINK_ADD) },
	[W_FWMARK] = { "fwmark", true, CMD(CLI_UPLINK_ADD) },
	[W_BACKUP] = { "backup", true, SET_FORMS | CMD(CLI_UPLINK_ADD) },
	[W_WEIGHT] = { "weight", true, SET_FORMS | CMD(CLI_UPLINK_ADD) },
	[W_UP] = { "up", false, SET_FORMS },
	[W_DOWN] = { "down", false, SET_FORMS },
};

static const char *const cmd_names[] = {
	[CLI_UPLINK_SET] = "uplink set",
	[CLI_UPLINK_ADD] = "uplink add",
	[CLI_UPLINK_DEL] = "uplink del",
	[CLI_UPLINK_HOTPLUG] = "uplink",
};

int cli_on_off(const char *word, bool *out)
{
	if (!strcmp(word, "on") || !strcmp(word, "yes") || !strcmp(word, "true"))
		*out = true;
	else if (!strcmp(word, "off") || !strcmp(word, "no") || !strcmp(word, "false"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

int cli_number(const char *text, long long *out)
{
	bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
	const char *digits = hex ? text + 2 : text;
	unsigned long long v;

	if (!*digits || strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") != strlen(digits))
		return -EINVAL;
	errno = 0;
	v = strtoull(digits, NULL, hex ? 16 : 10);
	/* Too large for any setting: the range check that follows says so, with the largest number. */
	*out = errno == ERANGE || v > LLONG_MAX ? LLONG_MAX : (long long)v;
	return 0;
}

const char *cli_uplink_cmd_name(enum cli_uplink_cmd cmd)
{
	return cmd_names[cmd];
}

static int fail(const struct cli_uplink_args *a, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "COMMAND: what", and -EINVAL. */
static int fail(const struct cli_uplink_args *a, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s: ", cmd_names[a->cmd]);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The word the command takes, W_COUNT if it takes none of that name. */
static enum word find_word(enum cli_uplink_cmd cmd, const char *text)
{
	for (int w = 0; w < W_COUNT; w++)
		if ((words[w].cmds & CMD(cmd)) && !strcmp(words[w].text, text))
			return (enum word)w;
	return W_COUNT;
}

/* A number for a setting, judged by its validator; *out unchanged on error. */
static int read_number(struct cli_uplink_args *a, const char *key, const char *text,
		       int (*check)(long long, char *, size_t), uint32_t *out, char *err, size_t errlen)
{
	char why[WB_WHY_MAX];
	long long v;

	if (cli_number(text, &v))
		return fail(a, err, errlen, "%s: '%s' is not a number", key, text);
	if (check(v, why, sizeof(why)))
		return fail(a, err, errlen, "%s: %s", key, why);
	*out = (uint32_t)v;
	return 0;
}

/* One word and its value (NULL for a word without one). */
static int take_word(struct cli_uplink_args *a, enum word w, const char *val, char *err, size_t errlen)
{
	char why[WB_WHY_MAX];
	bool on;

	switch (w) {
	case W_BOND:
		a->bond = val;
		return 0;
	case W_DEV:
		if (a->cmd == CLI_UPLINK_ADD && wb_validate_ifname(val, why, sizeof(why)))
			return fail(a, err, errlen, "dev: %s", why);
		a->dev = val;
		return 0;
	case W_SOURCE:
		if (wb_validate_source(NULL, val, why, sizeof(why)))
			return fail(a, err, errlen, "source: %s", why);
		a->source = val;
		return 0;
	case W_FWMARK:
		return read_number(a, "fwmark", val, wb_validate_fwmark, &a->fwmark, err, errlen);
	case W_WEIGHT:
		return read_number(a, "weight", val, wb_validate_weight, &a->weight, err, errlen);
	case W_BACKUP:
		if (cli_on_off(val, &on))
			return fail(a, err, errlen, "backup: '%s' is neither on nor off", val);
		a->backup = on;
		return 0;
	case W_UP:
	case W_DOWN:
		a->enabled = w == W_UP;
		return 0;
	case W_COUNT:
		break;
	}
	return -EINVAL;
}

int cli_uplink_parse(struct cli_uplink_args *a, enum cli_uplink_cmd cmd, int argc, char *const *argv, char *err,
		     size_t errlen)
{
	char why[WB_WHY_MAX];

	*a = (struct cli_uplink_args){ .cmd = cmd, .backup = -1, .enabled = -1 };
	if (argc < 1)
		return fail(a, err, errlen, "which uplink?");
	a->name = argv[0];
	/* A new name is held to the file's characters; any other is the daemon's to find or not. */
	if (cmd == CLI_UPLINK_ADD && wb_validate_name(a->name, why, sizeof(why)))
		return fail(a, err, errlen, "name: %s", why);
	for (int i = 1; i < argc; i++) {
		enum word w = find_word(cmd, argv[i]);
		const char *val = NULL;
		int rc;

		if (w == W_COUNT)
			return fail(a, err, errlen, "unexpected '%s'", argv[i]);
		if (words[w].value && i + 1 >= argc)
			return fail(a, err, errlen, "'%s' needs a value", argv[i]);
		if (words[w].value)
			val = argv[++i];
		rc = take_word(a, w, val, err, errlen);
		if (rc)
			return rc;
	}
	if (cmd == CLI_UPLINK_ADD && wb_validate_binding(a->dev != NULL, a->source != NULL, a->fwmark != 0, why,
							 sizeof(why)))
		return fail(a, err, errlen, "%s", why);
	return 0;
}

struct nlmsghdr *cli_uplink_request(void *buf, const struct cli_uplink_args *a)
{
	static const uint8_t ctl_cmds[] = {
		[CLI_UPLINK_SET] = WB_CTL_CMD_SET_UPLINK,
		[CLI_UPLINK_ADD] = WB_CTL_CMD_ADD_UPLINK,
		[CLI_UPLINK_DEL] = WB_CTL_CMD_DEL_UPLINK,
		[CLI_UPLINK_HOTPLUG] = WB_CTL_CMD_SET_UPLINK,
	};
	struct nlmsghdr *nlh = wb_ctl_msg_start(buf, ctl_cmds[a->cmd], NLM_F_ACK, 0);
	struct nlattr *nest = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);

	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, a->name);
	/* The interface of set is the configuration's: the hotplug script names it, the daemon has it. */
	if (a->cmd == CLI_UPLINK_ADD && a->dev)
		mnl_attr_put_strz(nlh, WB_CTL_U_DEVICE, a->dev);
	if (a->source)
		mnl_attr_put_strz(nlh, WB_CTL_U_SOURCE, a->source);
	if (a->fwmark)
		mnl_attr_put_u32(nlh, WB_CTL_U_FWMARK, a->fwmark);
	if (a->backup >= 0)
		mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, (uint8_t)a->backup);
	/* The hotplug form tells the interface's state, which the daemon keeps apart from the operator's switch. */
	if (a->enabled >= 0)
		mnl_attr_put_u8(nlh, a->cmd == CLI_UPLINK_HOTPLUG ? WB_CTL_U_IFACE_UP : WB_CTL_U_ENABLED,
				(uint8_t)a->enabled);
	if (a->weight)
		mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, a->weight);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}
