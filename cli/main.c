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

#include "cli_args.h"
#include "client.h"
#include "escape.h"
#include "prometheus.h"
#include "show.h"
#include "wanbond.h"

#define EXIT_USAGE 1
#define EXIT_DAEMON 2
#define EXIT_NOT_RUNNING 3
/* The daemon's default control.directory, as the build sets it (daemon/config.h). */
#ifdef WB_CONTROL_DIR
#define DEFAULT_DIR WB_CONTROL_DIR
#else
#define DEFAULT_DIR "/run/wanbond"
#endif
#define MAX_BONDS 256 /* the most a server has: one per peer (WB_MAX_PEERS, daemon/config.h) */

struct cli {
	const char *dir;
	bool json;
	bool colour;
};

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

enum view { VIEW_TABLE, VIEW_JSON, VIEW_STATUS, VIEW_DUMP, VIEW_STATS, VIEW_STATS_BRIEF };

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
	case VIEW_STATUS:
		cli_print_status(stdout, &b, !s->shown);
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
	if (view == VIEW_STATUS)
		fputs("{\"bonds\":{", stdout);
	rc = each_bond(cli, bond, show_one, &s);
	if (view == VIEW_JSON)
		fputs("]\n", stdout);
	/* Whole even when a bond failed: the bonds that answered are in it, the exit code says the rest. */
	if (view == VIEW_STATUS)
		fputs("}}\n", stdout);
	return rc;
}

static int cmd_show(const struct cli *cli, int argc, char **argv)
{
	if (argc > 1)
		return usage_error("show: one bond at most");
	return show(cli, cli->json ? VIEW_JSON : VIEW_TABLE, argc ? argv[0] : NULL);
}

static int cmd_status(const struct cli *cli, int argc, char **argv)
{
	if (argc > 1)
		return usage_error("status: one bond at most");
	return show(cli, VIEW_STATUS, argc ? argv[0] : NULL);
}

static int cmd_dump(const struct cli *cli, int argc, char **argv)
{
	if (argc > 1)
		return usage_error("dump: one bond at most");
	return show(cli, VIEW_DUMP, argc ? argv[0] : NULL);
}

/* The bonds read so far, for the views that print all of them at once. */
struct bond_list {
	struct cli_bond *b;
	int n, cap;
};

static int read_one(const struct cli *cli, const char *bond, void *data)
{
	struct bond_list *l = data;
	struct ctl_conn c;
	int rc;

	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 4;
		struct cli_bond *b = realloc(l->b, (size_t)cap * sizeof(*b));

		if (!b) {
			fprintf(stderr, "wanbond: bond %s: out of memory\n", bond);
			return EXIT_DAEMON;
		}
		l->b = b;
		l->cap = cap;
	}
	if ((rc = open_bond(cli, bond, &c)))
		return rc;
	rc = cli_read_bond(&c, &l->b[l->n]);
	ctl_close(&c);
	if (rc)
		return daemon_error(&c, bond, "reading the bond", rc);
	l->n++;
	return 0;
}

/*
 * Prometheus's text format: a family's samples must come together, so
 * every bond is read first. The bonds that could be read are printed even
 * when another could not (the exit code says so): the output is whole and
 * well-formed either way.
 */
static int stats_prometheus(const struct cli *cli, const char *bond)
{
	struct bond_list l = { 0 };
	int rc = each_bond(cli, bond, read_one, &l);

	cli_print_prometheus(stdout, l.b, l.n);
	free(l.b);
	return rc;
}

static int cmd_stats(const struct cli *cli, int argc, char **argv)
{
	bool brief = false, prometheus = false;
	int i = 0;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-s"))
			brief = true;
		else if (!strcmp(argv[i], "--prometheus"))
			prometheus = true;
		else
			return usage_error("stats: unknown option '%s'", argv[i]);
	}
	if (argc - i > 1)
		return usage_error("stats: one bond at most");
	if (prometheus && (brief || cli->json))
		return usage_error("stats: --prometheus prints every counter, in its own format: not with -s or -j");
	if (prometheus)
		return stats_prometheus(cli, i < argc ? argv[i] : NULL);
	if (cli->json)
		return show(cli, VIEW_JSON, i < argc ? argv[i] : NULL);
	return show(cli, brief ? VIEW_STATS_BRIEF : VIEW_STATS, i < argc ? argv[i] : NULL);
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

static int cmd_stats_reset(const struct cli *cli, int argc, char **argv)
{
	char buf[WB_CTL_MSG_MAX];

	return change(cli, argc ? argv[0] : NULL, wb_ctl_msg_start(buf, WB_CTL_CMD_RESET_COUNTERS, NLM_F_ACK, 0),
		      "stats reset");
}

static int cmd_sched_set(const struct cli *cli, int argc, char **argv)
{
	char buf[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh = wb_ctl_msg_start(buf, WB_CTL_CMD_SET_SCHED, NLM_F_ACK, 0);
	uint32_t on = 0, off = 0;
	const char *bond = NULL;
	int i = 0;

	if (argc < 1)
		return usage_error("sched set: nothing to set (a policy or rules)");
	if (wb_sched_exists(argv[0])) {
		mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, argv[0]);
		i = 1;
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
		if (i + 1 >= argc || cli_on_off(argv[i + 1], &value))
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

static int cmd_uplink(const struct cli *cli, enum cli_uplink_cmd cmd, int argc, char **argv)
{
	char buf[WB_CTL_MSG_MAX], err[256];
	struct cli_uplink_args a;

	if (cli_uplink_parse(&a, cmd, argc, argv, err, sizeof(err)))
		return usage_error("%s", err);
	/* The hotplug form is a set: the daemon's refusal is named so. */
	return change(cli, a.bond, cli_uplink_request(buf, &a),
		      cli_uplink_cmd_name(cmd == CLI_UPLINK_HOTPLUG ? CLI_UPLINK_SET : cmd));
}

static int cmd_uplink_set(const struct cli *cli, int argc, char **argv)
{
	return cmd_uplink(cli, CLI_UPLINK_SET, argc, argv);
}

static int cmd_uplink_add(const struct cli *cli, int argc, char **argv)
{
	return cmd_uplink(cli, CLI_UPLINK_ADD, argc, argv);
}

static int cmd_uplink_del(const struct cli *cli, int argc, char **argv)
{
	return cmd_uplink(cli, CLI_UPLINK_DEL, argc, argv);
}

static int cmd_uplink_hotplug(const struct cli *cli, int argc, char **argv)
{
	return cmd_uplink(cli, CLI_UPLINK_HOTPLUG, argc, argv);
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

static int cmd_monitor_bonds(const struct cli *cli, int argc, char **argv)
{
	if (argc > 1)
		return usage_error("monitor: one bond at most");
	return cmd_monitor(cli, argc ? argv[0] : NULL);
}

/* ---- the commands: dispatch and usage --------------------------------------------------------------- */

struct command {
	const char *name;    /* one word, or two: "uplink set" */
	const char *args;    /* the synopsis after the name */
	const char *summary; /* beside the synopsis in the usage; NULL if the synopsis says it */
	bool change;         /* changes the bond: the daemon wants root or control.admin_group */
	bool rules;          /* takes the scheduler's rules: the usage names them */
	int (*run)(const struct cli *cli, int argc, char **argv); /* argv: the words after the name */
};

/* In the order of the usage. */
static const struct command commands[] = {
	{ "show", "[BOND]", "the bonds and their uplinks (-j: JSON)", false, false, cmd_show },
	{ "status", "[BOND]", "JSON keyed by bond and uplink name (ubus, rpcd)", false, false, cmd_status },
	{ "dump", "[BOND]", "tab-separated, one line per bond and per uplink", false, false, cmd_dump },
	{ "stats", "[-s|--prometheus] [BOND]", "every counter (-s: only those not zero; --prometheus: for node_exporter)", false, false, cmd_stats },
	{ "stats reset", "[BOND]", "counters from zero again", true, false, cmd_stats_reset },
	{ "uplink set", "NAME [backup on|off] [weight N] [up|down] [bond BOND]", NULL, true, false, cmd_uplink_set },
	{ "uplink add", "NAME [dev DEV] [source ADDR] [fwmark M] [backup on|off] [weight N] [bond BOND]", NULL, true,
	  false, cmd_uplink_add },
	{ "uplink del", "NAME [bond BOND]", NULL, true, false, cmd_uplink_del },
	{ "uplink", "NAME dev DEV up|down", "an interface went up or down (hotplug)", true, false, cmd_uplink_hotplug },
	{ "sched set", "[POLICY] [RULE on|off]... [bond BOND]", NULL, true, true, cmd_sched_set },
	{ "monitor", "[BOND]", "print events as they happen", false, false, cmd_monitor_bonds },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* Whether the command's first word is word: "uplink set" is of the group "uplink". */
static bool in_group(const struct command *c, const char *word)
{
	size_t n = strcspn(c->name, " ");

	return !strncmp(c->name, word, n) && !word[n];
}

/* The command argv starts with, and how many words its name has; NULL if none. */
static const struct command *find_command(int argc, char **argv, int *words)
{
	const struct command *one = NULL;

	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct command *c = &commands[i];
		const char *second = strchr(c->name, ' ');

		if (!in_group(c, argv[0]))
			continue;
		if (second && argc > 1 && !strcmp(second + 1, argv[1])) {
			*words = 2;
			return c;
		}
		if (!second && !one)
			one = c;
	}
	*words = 1;
	return one;
}

static bool is_group(const char *word)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (in_group(&commands[i], word))
			return true;
	return false;
}

static bool has_subcommands(const char *word)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (in_group(&commands[i], word) && strchr(commands[i].name, ' '))
			return true;
	return false;
}

/* Whether the synopsis starts with an argument that must be given ("NAME", not "[BOND]"). */
static bool needs_args(const struct command *c)
{
	return c->args[0] && c->args[0] != '[';
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The scheduler's rules by name, as many as fit in 80 columns a line. */
static void print_rules(FILE *out)
{
	const char *names[32];
	size_t n = 0, col = strlen("rules:");

	for (uint32_t flag = 1; flag; flag <<= 1)
		if (wb_sched_rule_name(flag))
			names[n++] = wb_sched_rule_name(flag);
	qsort(names, n, sizeof(names[0]), name_cmp);
	fputs("rules:", out);
	for (size_t i = 0; i < n; i++) {
		if (col + 1 + strlen(names[i]) >= 80) {
			fputs("\n      ", out);
			col = strlen("rules:");
		}
		fprintf(out, " %s", names[i]);
		col += 1 + strlen(names[i]);
	}
	fputc('\n', out);
}

/* The commands of a group (all when NULL), or only one: a line each, with the summary beside it when it has one. */
static void print_commands(FILE *out, const char *group, const struct command *only)
{
	bool change = false, rules = false;

	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct command *c = &commands[i];
		char synopsis[128];

		if ((only && c != only) || (group && !in_group(c, group)))
			continue;
		snprintf(synopsis, sizeof(synopsis), "%s %s", c->name, c->args);
		if (c->summary)
			fprintf(out, "  %-36s %s\n", synopsis, c->summary);
		else
			fprintf(out, "  %s\n", synopsis);
		change |= c->change;
		rules |= c->rules;
	}
	if (group && change)
		fputs("changes need root or a member of control.admin_group\n", out);
	if (group && rules)
		print_rules(out);
}

static void print_usage(FILE *out)
{
	fputs("usage: wanbond [-j] [-d DIR] COMMAND [ARGS]\n", out);
	print_commands(out, NULL, NULL);
	fputs("options:\n"
	      "  -j, --json        JSON output (show, stats)\n"
	      "  -d, --dir DIR     the control sockets' directory (default " DEFAULT_DIR ", or $WANBOND_CONTROL_DIR)\n"
	      "  -h, --help        this text; COMMAND --help for one command\n",
	      out);
	print_rules(out);
}

static bool is_help(const char *word)
{
	return !strcmp(word, "--help") || !strcmp(word, "-h");
}

/* COMMAND --help: the command, or its group's commands ("uplink --help"); all of them for a word of none. */
static int help(const char *group, const struct command *only)
{
	if (!is_group(group)) {
		print_usage(stdout);
		return 0;
	}
	fputs("usage: wanbond [-j] [-d DIR] COMMAND [ARGS]\n", stdout);
	print_commands(stdout, group, only);
	return 0;
}

/* A group's word alone ("sched", "uplink"): which commands it has. */
static int which_command(const char *group)
{
	fprintf(stderr, "wanbond: %s: which command?\n", group);
	print_commands(stderr, group, NULL);
	fputs("(wanbond --help for usage)\n", stderr);
	return EXIT_USAGE;
}

static int run(const struct cli *cli, int argc, char **argv)
{
	int words;
	const struct command *c = find_command(argc, argv, &words);

	if (argc > words && is_help(argv[words]))
		return help(argv[0], words == 2 ? c : NULL);
	if (argc > 1 && is_help(argv[1]))
		return help(argv[0], NULL);
	/* "uplink" alone is more likely a command forgotten than the hotplug form without its uplink. */
	if (c && !(argc == 1 && needs_args(c) && has_subcommands(argv[0])))
		return c->run(cli, argc - words, argv + words);
	if (has_subcommands(argv[0]))
		return which_command(argv[0]);
	return usage_error("unknown command '%s'", argv[0]);
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
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
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
