/* SPDX-License-Identifier: MIT */
/*
 * The CLI's side of a control socket: connect to a bond's socket, send a
 * request, read its replies (one, a dump, or an ack) and the daemon's
 * error with its extended-ack message.
 */
#ifndef WB_CLI_CLIENT_H
#define WB_CLI_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "ctl.h"

struct ctl_conn {
	int fd;
	uint32_t seq;
	char path[108];
	char error[256]; /* the daemon's message for the last failure, "" if none */
};

/* Each reply of a request; a non-zero return stops reading (and is returned). */
typedef int (*ctl_reply_cb)(const struct wb_ctl_msg *m, void *data);

/* 0, or -errno (-ENOENT, -ECONNREFUSED: no daemon there). */
int ctl_connect(struct ctl_conn *c, const char *path);
void ctl_close(struct ctl_conn *c);

/*
 * Sends the request nlh (its seq is set here) and reads until its end: the
 * ack, NLMSG_DONE of a dump, or the one reply of a get. 0, or -errno from
 * the daemon (message in c->error) or from the socket.
 */
int ctl_request(struct ctl_conn *c, struct nlmsghdr *nlh, ctl_reply_cb cb, void *data);

/* Reads one message sent unasked (a monitor's event); 0, -errno, or -ECONNRESET when the daemon left. */
int ctl_read_event(struct ctl_conn *c, ctl_reply_cb cb, void *data);

#endif
