// SPDX-License-Identifier: MIT
/*
 * wanbond: the operator's view of the bonds wanbondd runs, through their
 * control sockets (docs/cli.md).
 *
 * Exit codes: 0 success, 1 usage error, 2 an error from the daemon, 3 no
 * daemon running (as procd's status).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "escape.h"
#include "show.h"
#include "wanbond.h"

#define EXIT_USAGE 1
#define EXIT_DAEMON 2
#define EXIT_NOT_RUNNING 3
#define DEFAULT_DIR "/run/wanbond"
#define MAX_BONDS 256 /* the most a server has: one per peer (WB_MAX_PEERS, daemon/config.h) */

static const char usage[] =
	"usage: wanbond [-j] [-d DIR] COMMAND [ARGS]\n"
	"  show [BOND]                          the bonds and their uplinks (-j: JSON)\n"
	"  dump [BOND]                          tab-separated, one line per bond and per uplink\n"
	"  stats [-s] [BOND]                    every counter (-s: only those not zero)\n"
	"  stats reset [BOND]                   counters from zero again\n"
	"  uplink set NAME [backup on|off] [weight N] [up|down] [bond BOND]\n"
	"  uplink add NAME [dev DEV] [source ADDR] [fwmark M] [backup on|off] [weight N] [bond BOND]\n"
	"  uplink del NAME [bond BOND]\n"
	"  uplink NAME dev DEV up|down          an interface went up or down (hotplug)\n"
	"  sched set [POLICY] [RULE on|off]... [bond BOND]\n"
	"  monitor [BOND]                       print events as they happen\n"
	"options:\n"
	"  -j, --json        JSON output (show, stats)\n"
	"  -d, --dir DIR     the control sockets' directory (default " DEFAULT_DIR
	", or $WANBOND_CONTROL_DIR)\n"
	"  -h, --help        this text; COMMAND --help for one command\n"
	"rules: arrival avoid_blocking penalise penalise_guard reinject reinject_on_rwnd\n"
	"       reinject_on_sndbuf reinject_on_app_limited\n";

struct cli {
	const char *dir;
	bool json;
	bool colour;
};

/* ---- finding the bonds ---------------------------------------------------------------- */

static int row_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The bonds with a socket in the directory, sorted; how many (at most max). */
static int list_bonds(const struct cli *cli, char names[][64], int max)
{
	DIR *dir = opendir(cli->dir);
	struct dirent *e;
	int n = 0;

	if (!dir)
		return 0;
	while ((e = readdir(dir)) && n < max) {
		size_t len = strlen(e->d_name);

		if (len > 5 && len < 64 && !strcmp(e->d_name + len - 5, ".sock")) {
			snprintf(names[n], 64, "%.*s", (int)(len - 5), e->d_name);
			n++;
		}
	}
	closedir(dir);
	qsort(names, (size_t)n, sizeof(names[0]), row_cmp);
	return n;
}

static int open_bond(const struct cli *cli, const char *bond, struct ctl_conn *c)
{
	char path[160];
	int rc;

	snprintf(path, sizeof(path), "%s/%s.sock", cli->dir, bond);
	rc = ctl_connect(c, path);
	if (rc == -ENOENT || rc == -ECONNREFUSED) {
		fprintf(stderr, "wanbond: bond %s: no daemon running (%s)\n", bond, path);
		return EXIT_NOT_RUNNING;
	}
	if (rc) {
		fprintf(stderr, "wanbond: bond %s: %s: %s\n", bond, path, strerror(-rc));
		return EXIT_DAEMON;
	}
	return 0;
}

static int daemon_error(const struct ctl_conn *c, const char *bond, const char *what, int rc)
{
	if (rc == -ECONNRESET || rc == -EPIPE) {
		fprintf(stderr, "wanbond: bond %s: the daemon closed the connection\n", bond);
		return EXIT_NOT_RUNNING;
	}
	fprintf(stderr, "wanbond: bond %s: %s: %s%s%s\n", bond, what, strerror(-rc), c->error[0] ? ": " : "", c->error);
	return EXIT_DAEMON;
}

/*
 * Runs fn on the bond named, or on every bond in the directory. With none
 * running, says so: exit code 3.
 */
static int each_bond(const struct cli *cli, const char *only, int (*fn)(const struct cli *, const char *, void *),
		     void *data)
{
	static char names[MAX_BONDS][64];
	int n = list_bonds(cli, names, MAX_BONDS), worst = 0;

	if (only)
		return fn(cli, only, data);
	if (!n) {
		fprintf(stderr, "wanbond: no daemon running (no control socket in %s)\n", cli->dir);
		return EXIT_NOT_RUNNING;
	}
	for (int i = 0; i < n; i++) {
		int rc = fn(cli, names[i], data);

		worst = rc > worst ? rc : worst;
	}
	return worst;
}

/* ---- show, dump, stats ---------------------------------------------------------------------- */

enum view { VIEW_TABLE, VIEW_JSON, VIEW_DUMP, VIEW_STATS, VIEW_STATS_BRIEF };

struct show_state {
	enum view view;
	int shown;
};

static int show_one(const struct cli *cli, const char *bond, void *data)
{
	struct show_state *s = data;
	struct cli_bond b;
	struct ctl_conn c;
	int rc = open_bond(cli, bond, &c);

	if (rc)
		return rc;
	rc = cli_read_bond(&c, &b);
	ctl_close(&c);
	if (rc)
		return daemon_error(&c, bond, "reading the bond", rc);
	switch (s->view) {
	case VIEW_TABLE:
		if (s->shown)
			putchar('\n');
		cli_print_table(stdout, &b, cli->colour);
		break;
	case VIEW_JSON:
		cli_print_json(stdout, &b, !s->shown);
		break;
	case VIEW_DUMP:
		cli_print_dump(stdout, &b);
		break;
	case VIEW_STATS:
	case VIEW_STATS_BRIEF:
		cli_print_stats(stdout, &b, s->view == VIEW_STATS_BRIEF);
		break;
	}
	s->shown++;
	return 0;
}

static int show(const struct cli *cli, enum view view, const char *bond)
{
	struct show_state s = { view, 0 };
	int rc;

	if (view == VIEW_JSON)
		fputs("[", stdout);
	rc = each_bond(cli, bond, show_one, &s);
	if (view == VIEW_JSON)
		fputs("]\n", stdout);
	return rc;
}

/* ---- changes ------------------------------------------------------------------------------------- */

/* Sends one request built in buf to the bond; prints the daemon's error if any. */
static int change(const struct cli *cli, const char *bond, struct nlmsghdr *nlh, const char *what)
{
	char names[2][64];
	struct ctl_conn c;
	int rc;

	if (!bond) {
		int n = list_bonds(cli, names, 2);

		if (n != 1) {
			fprintf(stderr, n ? "wanbond: %s: several bonds run: name one with 'bond BOND'\n"
					  : "wanbond: %s: no daemon running\n",
				what);
			return n ? EXIT_USAGE : EXIT_NOT_RUNNING;
		}
		bond = names[0];
	}
	rc = open_bond(cli, bond, &c);
	if (rc)
		return rc;
	rc = ctl_request(&c, nlh, NULL, NULL);
	ctl_close(&c);
	return rc ? daemon_error(&c, bond, what, rc) : 0;
}

static int on_off(const char *word, bool *out)
{
	if (!strcmp(word, "on") || !strcmp(word, "yes") || !strcmp(word, "true"))
		*out = true;
	else if (!strcmp(word, "off") || !strcmp(word, "no") || !strcmp(word, "false"))
		*out = false;
	else
		return -1;
	return 0;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("wanbond: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(wanbond --help for usage)\n", stderr);
	return EXIT_USAGE;
}

static int cmd_sched(const struct cli *cli, int argc, char **argv)
{
	char buf[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh = wb_ctl_msg_start(buf, WB_CTL_CMD_SET_SCHED, NLM_F_ACK, 0);
	uint32_t on = 0, off = 0;
	const char *bond = NULL;
	int i = 1;

	if (argc < 2 || strcmp(argv[0], "set"))
		return usage_error("sched: expected 'sched set [POLICY] [RULE on|off]...'");
	if (wb_sched_exists(argv[1])) {
		mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, argv[1]);
		i = 2;
	}
	for (; i < argc; i += 2) {
		uint32_t rule = wb_sched_rule_by_name(argv[i]);
		bool value;

		if (!strcmp(argv[i], "bond") && i + 1 < argc) {
			bond = argv[i + 1];
			continue;
		}
		if (!rule)
			return usage_error("sched set: '%s' is neither a policy nor a rule", argv[i]);
		if (i + 1 >= argc || on_off(argv[i + 1], &value))
			return usage_error("sched set: rule %s needs on or off", argv[i]);
		/* The switch is "rule off": a rule on clears it. */
		if (value) {
			on |= rule;
			off &= ~rule;
		} else {
			off |= rule;
			on &= ~rule;
		}
	}
	if (on)
		mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_ON, on);
	if (off)
		mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_SET_OFF, off);
	return change(cli, bond, nlh, "sched set");
}

/* uplink add NAME [dev DEV] [source ADDR] [fwmark M] [backup on|off] [weight N]; uplink del NAME. */
static int cmd_uplink_add_del(const struct cli *cli, int argc, char **argv)
{
	bool add = !strcmp(argv[0], "add");
	char buf[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh = wb_ctl_msg_start(buf, add ? WB_CTL_CMD_ADD_UPLINK : WB_CTL_CMD_DEL_UPLINK, NLM_F_ACK, 0);
	struct nlattr *nest;
	const char *bond = NULL;

	if (argc < 2)
		return usage_error("uplink %s: which uplink?", argv[0]);
	nest = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, argv[1]);
	for (int i = 2; i < argc; i++) {
		const char *key = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool value;
		char *end;

		if (!val)
			return usage_error("uplink %s: '%s' needs a value", argv[0], key);
		i++;
		if (!strcmp(key, "bond")) {
			bond = val;
		} else if (add && !strcmp(key, "dev")) {
			mnl_attr_put_strz(nlh, WB_CTL_U_DEVICE, val);
		} else if (add && !strcmp(key, "source")) {
			mnl_attr_put_strz(nlh, WB_CTL_U_SOURCE, val);
		} else if (add && !strcmp(key, "fwmark")) {
			unsigned long m = strtoul(val, &end, 0);

			if (*end || !*val || !m || m > 0xffffffffUL)
				return usage_error("uplink add: fwmark '%s': 1 to 0xffffffff expected", val);
			mnl_attr_put_u32(nlh, WB_CTL_U_FWMARK, (uint32_t)m);
		} else if (add && !strcmp(key, "backup") && !on_off(val, &value)) {
			mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, value);
		} else if (add && !strcmp(key, "weight")) {
			unsigned long w = strtoul(val, &end, 10);

			if (*end || !*val || w < 1 || w > 1000)
				return usage_error("uplink add: weight '%s': 1 to 1000 expected", val);
			mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, (uint32_t)w);
		} else {
			return usage_error("uplink %s: unexpected '%s %s'", argv[0], key, val);
		}
	}
	mnl_attr_nest_end(nlh, nest);
	return change(cli, bond, nlh, add ? "uplink add" : "uplink del");
}

static int cmd_uplink(const struct cli *cli, int argc, char **argv)
{
	char buf[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh = wb_ctl_msg_start(buf, WB_CTL_CMD_SET_UPLINK, NLM_F_ACK, 0);
	struct nlattr *nest;
	const char *bond = NULL;
	int i;

	if (argc < 1)
		return usage_error("uplink: expected 'uplink set NAME ...' or 'uplink NAME dev DEV up|down'");
	if (!strcmp(argv[0], "add") || !strcmp(argv[0], "del"))
		return cmd_uplink_add_del(cli, argc, argv);
	i = !strcmp(argv[0], "set") ? 1 : 0;
	if (i >= argc)
		return usage_error("uplink set: which uplink?");
	nest = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, argv[i]);
	for (i++; i < argc; i++) {
		bool value;

		if (!strcmp(argv[i], "up") || !strcmp(argv[i], "down")) {
			mnl_attr_put_u8(nlh, WB_CTL_U_ENABLED, !strcmp(argv[i], "up"));
		} else if (!strcmp(argv[i], "dev") && i + 1 < argc) {
			i++; /* the interface is the configuration's: named by hotplug for the log only */
		} else if (!strcmp(argv[i], "bond") && i + 1 < argc) {
			bond = argv[++i];
		} else if (!strcmp(argv[i], "backup") && i + 1 < argc && !on_off(argv[i + 1], &value)) {
			mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, value);
			i++;
		} else if (!strcmp(argv[i], "weight") && i + 1 < argc) {
			char *end;
			unsigned long w = strtoul(argv[++i], &end, 10);

			if (*end || !*argv[i] || w < 1 || w > 1000)
				return usage_error("uplink: weight '%s': 1 to 1000 expected", argv[i]);
			mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, (uint32_t)w);
		} else {
			return usage_error("uplink: unexpected '%s'", argv[i]);
		}
	}
	mnl_attr_nest_end(nlh, nest);
	return change(cli, bond, nlh, "uplink set");
}

static int cmd_stats(const struct cli *cli, int argc, char **argv)
{
	bool brief = false;
	int i = 0;

	if (argc && !strcmp(argv[0], "reset")) {
		char buf[WB_CTL_MSG_MAX];

		return change(cli, argc > 1 ? argv[1] : NULL,
			      wb_ctl_msg_start(buf, WB_CTL_CMD_RESET_COUNTERS, NLM_F_ACK, 0), "stats reset");
	}
	if (argc && !strcmp(argv[0], "-s")) {
		brief = true;
		i++;
	}
	if (cli->json)
		return show(cli, VIEW_JSON, i < argc ? argv[i] : NULL);
	return show(cli, brief ? VIEW_STATS_BRIEF : VIEW_STATS, i < argc ? argv[i] : NULL);
}

/* ---- monitor ---------------------------------------------------------------------------------------- */

static int print_event(const struct wb_ctl_msg *m, void *data)
{
	const char *name = m->e[WB_CTL_E_TYPE] ? wb_ctl_event_name(mnl_attr_get_u32(m->e[WB_CTL_E_TYPE])) : NULL;
	char stamp[32], text[1024]; /* the text of an event, escaped (escape.h): it may quote the peer */
	time_t t = time(NULL);
	struct tm tm;

	(void)data;
	if (m->cmd != WB_CTL_CMD_EVENT)
		return 0;
	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime_r(&t, &tm));
	printf("%s %s %s", stamp, wb_escape(text, sizeof(text), wb_ctl_str(m->a[WB_CTL_A_BOND_NAME], "?")),
	       name ? name : "event");
	if (m->e[WB_CTL_E_UPLINK])
		printf(" %s", wb_escape(text, sizeof(text), mnl_attr_get_str(m->e[WB_CTL_E_UPLINK])));
	if (m->e[WB_CTL_E_COUNT])
		printf(" x%llu", (unsigned long long)mnl_attr_get_u64(m->e[WB_CTL_E_COUNT]));
	if (m->e[WB_CTL_E_TEXT])
		printf(": %s", wb_escape(text, sizeof(text), mnl_attr_get_str(m->e[WB_CTL_E_TEXT])));
	putchar('\n');
	fflush(stdout);
	return 0;
}

static int cmd_monitor(const struct cli *cli, const char *only)
{
	char names[16][64], buf[WB_CTL_MSG_MAX];
	struct ctl_conn conns[16];
	struct pollfd pfd[16];
	int n = only ? 1 : list_bonds(cli, names, 16), rc;

	if (only)
		snprintf(names[0], sizeof(names[0]), "%s", only);
	if (!n) {
		fprintf(stderr, "wanbond: no daemon running (no control socket in %s)\n", cli->dir);
		return EXIT_NOT_RUNNING;
	}
	for (int i = 0; i < n; i++) {
		if ((rc = open_bond(cli, names[i], &conns[i])))
			return rc;
		rc = ctl_request(&conns[i], wb_ctl_msg_start(buf, WB_CTL_CMD_MONITOR, NLM_F_ACK, 0), NULL, NULL);
		if (rc)
			return daemon_error(&conns[i], names[i], "monitor", rc);
		pfd[i] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
	}
	for (;;) {
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return EXIT_DAEMON;
		}
		for (int i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			rc = ctl_read_event(&conns[i], print_event, NULL);
			if (rc)
				return daemon_error(&conns[i], names[i], "monitor", rc);
		}
	}
}

/* ---- main ---------------------------------------------------------------------------------------------- */

static int run(const struct cli *cli, int argc, char **argv)
{
	const char *cmd = argv[0], *arg = argc > 1 ? argv[1] : NULL;

	if (arg && (!strcmp(arg, "--help") || !strcmp(arg, "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "show"))
		return argc > 2 ? usage_error("show: one bond at most") : show(cli, cli->json ? VIEW_JSON : VIEW_TABLE, arg);
	if (!strcmp(cmd, "dump"))
		return argc > 2 ? usage_error("dump: one bond at most") : show(cli, VIEW_DUMP, arg);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(cli, argc - 1, argv + 1);
	if (!strcmp(cmd, "sched"))
		return cmd_sched(cli, argc - 1, argv + 1);
	if (!strcmp(cmd, "uplink"))
		return cmd_uplink(cli, argc - 1, argv + 1);
	if (!strcmp(cmd, "monitor"))
		return argc > 2 ? usage_error("monitor: one bond at most") : cmd_monitor(cli, arg);
	return usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli = { .dir = getenv("WANBOND_CONTROL_DIR") };
	int c;

	if (!cli.dir || !*cli.dir)
		cli.dir = DEFAULT_DIR;
	while ((c = getopt_long(argc, argv, "+jd:h", longs, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli.json = true;
			break;
		case 'd':
			cli.dir = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	cli.colour = isatty(STDOUT_FILENO) && !getenv("NO_COLOR") && !cli.json;
	if (optind >= argc) {
		/* As wg: no command is show. */
		return show(&cli, cli.json ? VIEW_JSON : VIEW_TABLE, NULL);
	}
	return run(&cli, argc - optind, argv + optind);
}
