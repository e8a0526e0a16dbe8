// SPDX-License-Identifier: MIT
/*
 * rtnl_probe: the rtnetlink module (daemon/rtnl.c) on the command line, so a
 * namespace test can drive it and check the result with `ip -j`.
 *
 *   rtnl_probe link-get IFNAME                      prints "ifindex=N mtu=M"
 *   rtnl_probe link-set IFNAME MTU up|down          MTU 0 leaves it
 *   rtnl_probe addr-add IFNAME PREFIX
 *   rtnl_probe route-add IFNAME PREFIX TABLE METRIC  TABLE 0 is main
 *   rtnl_probe route-del IFNAME PREFIX TABLE METRIC
 *
 * Exit 0 on success; 1 with "error: <strerror>[: <kernel message>]" when a
 * call fails; 2 with a usage line when the arguments are wrong.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rtnl.h"

/* What a command returns for arguments it cannot parse (calls return 0 / -errno). */
#define PROBE_BAD_ARGS 1

struct probe_cmd {
	const char *name;
	int argc; /* arguments after the command name */
	const char *usage;
	int (*run)(struct wb_rtnl *r, char **argv);
};

/*
 * "10.1.0.0/24" or "fd00::1/64" (no "/LEN": a host prefix). A local stand-in
 * for wb_prefix_parse, which config.c did not have yet when this was written.
 */
static int probe_prefix_parse(struct wb_prefix *p, const char *s)
{
	char text[INET6_ADDRSTRLEN + 8];
	char *slash, *end;
	unsigned long len;
	int max;

	if (strlen(s) >= sizeof(text))
		return -EINVAL;
	strcpy(text, s);
	slash = strchr(text, '/');
	if (slash)
		*slash = '\0';
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, text, p->addr) == 1)
		p->family = AF_INET;
	else if (inet_pton(AF_INET6, text, p->addr) == 1)
		p->family = AF_INET6;
	else
		return -EINVAL;
	max = p->family == AF_INET ? 32 : 128;
	if (!slash) {
		p->len = (uint8_t)max;
		return 0;
	}
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno || end == slash + 1 || *end || len > (unsigned long)max)
		return -EINVAL;
	p->len = (uint8_t)len;
	return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int cmd_link_get(struct wb_rtnl *r, char **argv)
{
	int ifindex, err;
	uint32_t mtu;

	err = wb_rtnl_link_get(r, argv[0], &ifindex, &mtu);
	if (!err)
		printf("ifindex=%d mtu=%u\n", ifindex, mtu);
	return err;
}

static int cmd_link_set(struct wb_rtnl *r, char **argv)
{
	int ifindex, err;
	uint32_t mtu, cur;

	if (parse_u32(argv[1], &mtu) || (strcmp(argv[2], "up") && strcmp(argv[2], "down")))
		return PROBE_BAD_ARGS;
	err = wb_rtnl_link_get(r, argv[0], &ifindex, &cur);
	return err ? err : wb_rtnl_link_set(r, ifindex, mtu, !strcmp(argv[2], "up"));
}

static int cmd_addr_add(struct wb_rtnl *r, char **argv)
{
	struct wb_prefix p;
	int ifindex, err;
	uint32_t mtu;

	if (probe_prefix_parse(&p, argv[1]))
		return PROBE_BAD_ARGS;
	err = wb_rtnl_link_get(r, argv[0], &ifindex, &mtu);
	return err ? err : wb_rtnl_addr_add(r, ifindex, &p);
}

/* route-add and route-del take the same arguments. */
static int cmd_route(struct wb_rtnl *r, char **argv, bool add)
{
	struct wb_prefix p;
	uint32_t table, metric, mtu;
	int ifindex, err;

	if (probe_prefix_parse(&p, argv[1]) || parse_u32(argv[2], &table) || parse_u32(argv[3], &metric))
		return PROBE_BAD_ARGS;
	err = wb_rtnl_link_get(r, argv[0], &ifindex, &mtu);
	if (err)
		return err;
	return add ? wb_rtnl_route_add(r, ifindex, &p, table, metric)
		   : wb_rtnl_route_del(r, ifindex, &p, table, metric);
}

static int cmd_route_add(struct wb_rtnl *r, char **argv)
{
	return cmd_route(r, argv, true);
}

static int cmd_route_del(struct wb_rtnl *r, char **argv)
{
	return cmd_route(r, argv, false);
}

static const struct probe_cmd probe_cmds[] = {
	{ "link-get", 1, "IFNAME", cmd_link_get },
	{ "link-set", 3, "IFNAME MTU up|down", cmd_link_set },
	{ "addr-add", 2, "IFNAME PREFIX", cmd_addr_add },
	{ "route-add", 4, "IFNAME PREFIX TABLE METRIC", cmd_route_add },
	{ "route-del", 4, "IFNAME PREFIX TABLE METRIC", cmd_route_del },
};

#define N_CMDS (sizeof(probe_cmds) / sizeof(probe_cmds[0]))

static int usage(void)
{
	size_t i;

	for (i = 0; i < N_CMDS; i++)
		fprintf(stderr, "usage: rtnl_probe %s %s\n", probe_cmds[i].name, probe_cmds[i].usage);
	return 2;
}

static const struct probe_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < N_CMDS; i++)
		if (!strcmp(probe_cmds[i].name, name))
			return &probe_cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct probe_cmd *cmd = argc > 1 ? find_cmd(argv[1]) : NULL;
	struct wb_rtnl *r;
	int err;

	if (!cmd || argc - 2 != cmd->argc)
		return usage();
	err = wb_rtnl_open(&r);
	if (err) {
		fprintf(stderr, "error: %s\n", strerror(-err));
		return 1;
	}
	err = cmd->run(r, argv + 2);
	if (err < 0 && wb_rtnl_error(r)[0])
		fprintf(stderr, "error: %s: %s\n", strerror(-err), wb_rtnl_error(r));
	else if (err < 0)
		fprintf(stderr, "error: %s\n", strerror(-err));
	wb_rtnl_close(r);
	if (err == PROBE_BAD_ARGS)
		return usage();
	return err ? 1 : 0;
}
