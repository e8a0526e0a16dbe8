/* SPDX-License-Identifier: MIT */
/*
 * The CLI's arguments after the command's name: the words on and off, a
 * number, and those of every `wanbond uplink` command, read by one parser:
 *
 *   uplink set NAME [backup on|off] [weight N] [up|down] [bond BOND]
 *   uplink add NAME [dev DEV] [source ADDR] [fwmark M] [backup on|off] [weight N] [bond BOND]
 *   uplink del NAME [bond BOND]
 *   uplink NAME dev DEV up|down       (the hotplug script's form of set)
 *
 * Each value is checked as the configuration file checks it (validate.h).
 * Pure: no I/O, so the unit tests reach every message.
 */
#ifndef WB_CLI_ARGS_H
#define WB_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctl.h"

/* on, yes or true; off, no or false: 0, or -EINVAL for another word. */
int cli_on_off(const char *word, bool *out);

/* A number as the configuration file writes one: decimal, or hex after 0x; no sign, no space. */
int cli_number(const char *text, long long *out);

enum cli_uplink_cmd { CLI_UPLINK_SET, CLI_UPLINK_ADD, CLI_UPLINK_DEL, CLI_UPLINK_HOTPLUG };

struct cli_uplink_args {
	enum cli_uplink_cmd cmd;
	const char *name;
	const char *bond;   /* NULL: the one bond running */
	const char *dev;    /* add: the interface to bind to; set: named by hotplug, for the log only */
	const char *source; /* add: the source address; NULL if none */
	uint32_t fwmark;    /* add: 0 if none */
	uint32_t weight;    /* 0 if not given */
	int backup;         /* 0 or 1; -1 if not given */
	int enabled;        /* up 1, down 0; -1 if not given */
};

/* "uplink set", "uplink add", "uplink del" or "uplink": how messages name the command. */
const char *cli_uplink_cmd_name(enum cli_uplink_cmd cmd);

/*
 * The words after the command's own ("uplink set" ...): 0, or -EINVAL with
 * a message in err that names the command ("uplink add: weight: 0 is out of
 * range 1..1000"). a's strings point into argv.
 */
int cli_uplink_parse(struct cli_uplink_args *a, enum cli_uplink_cmd cmd, int argc, char *const *argv, char *err,
		     size_t errlen);

/* The request a stands for, built in buf (WB_CTL_MSG_MAX bytes). */
struct nlmsghdr *cli_uplink_request(void *buf, const struct cli_uplink_args *a);

#endif
