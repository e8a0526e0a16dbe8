// SPDX-License-Identifier: MIT
#include "client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/netlink.h>

int ctl_connect(struct ctl_conn *c, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(c, 0, sizeof(*c));
	snprintf(c->path, sizeof(c->path), "%s", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int rc = -errno;

		close(c->fd);
		c->fd = -1;
		return rc;
	}
	return 0;
}

void ctl_close(struct ctl_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/*
 * One message from the daemon. Returns 1 if it ends the request (an ack,
 * an error, NLMSG_DONE, or the single reply of a get), 0 to read on, or
 * a negative errno.
 */
static int take(struct ctl_conn *c, const struct nlmsghdr *nlh, size_t len, ctl_reply_cb cb, void *data)
{
	struct wb_ctl_msg m;
	const char *msg;
	int error, rc;

	if (len >= sizeof(*nlh) && nlh->nlmsg_type == NLMSG_ERROR) {
		if (wb_ctl_read_error(nlh, len, &error, &msg))
			return -EBADMSG;
		snprintf(c->error, sizeof(c->error), "%s", msg);
		return error ? error : 1;
	}
	if (len >= sizeof(*nlh) && nlh->nlmsg_type == NLMSG_DONE)
		return 1;
	rc = wb_ctl_parse(nlh, len, WB_CTL_REPLY, &m, c->error, sizeof(c->error));
	if (rc)
		return rc;
	if (cb && (rc = cb(&m, data)))
		return rc < 0 ? rc : -ECANCELED;
	return (nlh->nlmsg_flags & NLM_F_MULTI) ? 0 : 1;
}

static int receive(struct ctl_conn *c, void *buf, size_t size)
{
	ssize_t n = recv(c->fd, buf, size, MSG_TRUNC);

	/*
	 * A daemon that closes a connection with our request unread in it (a
	 * refusal: no slot free) makes the kernel report ECONNRESET first,
	 * once; the refusal it sent before is still queued behind the error.
	 */
	if (n < 0 && errno == ECONNRESET)
		n = recv(c->fd, buf, size, MSG_TRUNC | MSG_DONTWAIT);
	if (n < 0 && (errno == ECONNRESET || errno == EAGAIN))
		return -ECONNRESET;
	if (n < 0)
		return errno == EINTR ? -EINTR : -errno;
	if (n == 0)
		return -ECONNRESET;
	if ((size_t)n > size)
		return -EMSGSIZE;
	return (int)n;
}

/*
 * A send that failed because the daemon closed the connection: the error
 * it sent before closing (why: no slot free) may still be queued. Returns
 * that error, or rc.
 */
static int refusal_queued(struct ctl_conn *c, int rc)
{
	char buf[WB_CTL_MSG_MAX] __attribute__((aligned(4)));
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	ssize_t n;

	if (rc != -EPIPE && rc != -ECONNRESET)
		return rc;
	n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && errno == ECONNRESET)
		n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < (ssize_t)sizeof(*nlh) || nlh->nlmsg_type != NLMSG_ERROR)
		return rc;
	n = take(c, nlh, (size_t)n, NULL, NULL);
	return n < 0 ? (int)n : rc;
}

int ctl_request(struct ctl_conn *c, struct nlmsghdr *nlh, ctl_reply_cb cb, void *data)
{
	char buf[WB_CTL_MSG_MAX] __attribute__((aligned(4)));
	int rc;

	c->error[0] = 0;
	nlh->nlmsg_seq = ++c->seq;
	nlh->nlmsg_flags |= NLM_F_REQUEST;
	if (send(c->fd, nlh, nlh->nlmsg_len, MSG_NOSIGNAL) != (ssize_t)nlh->nlmsg_len)
		return refusal_queued(c, -errno);
	do {
		int n = receive(c, buf, sizeof(buf));

		if (n < 0)
			return n;
		if ((size_t)n < sizeof(struct nlmsghdr))
			return -EBADMSG;
		/* An event of an earlier subscription; an error with no seq answers a request it could not read. */
		if (((struct nlmsghdr *)buf)->nlmsg_seq != c->seq &&
		    !(((struct nlmsghdr *)buf)->nlmsg_seq == 0 && ((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR))
			continue;
		rc = take(c, (struct nlmsghdr *)buf, (size_t)n, cb, data);
	} while (rc == 0);
	return rc < 0 ? rc : 0;
}

int ctl_read_event(struct ctl_conn *c, ctl_reply_cb cb, void *data)
{
	char buf[WB_CTL_MSG_MAX] __attribute__((aligned(4)));
	int n = receive(c, buf, sizeof(buf)), rc;

	if (n < 0)
		return n;
	rc = take(c, (struct nlmsghdr *)buf, (size_t)n, cb, data);
	return rc < 0 ? rc : 0;
}
