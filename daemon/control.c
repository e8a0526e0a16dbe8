// SPDX-License-Identifier: MIT
/*
 * The bonds' control sockets (control.h). One request per datagram of the
 * SOCK_SEQPACKET socket, answered at once: the loop never waits on a
 * client. A client that does not read its replies or events loses them
 * (counted), never the daemon's time.
 */
#define _GNU_SOURCE /* accept4 */
#include "control.h"

#include <errno.h>
#include <inttypes.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>

#include "ctl.h"
#include "daemon.h"
#include "peer_cred.h"
#include "validate.h"

struct ctl_client {
	struct ctl_server *srv;
	struct loop_fd lfd;
	bool monitor;
	struct peer_cred peer;    /* judged as it was accepted, for the connection's life */
	uint64_t last_request_ns; /* or when it was accepted: the idle timeout counts from it */
};

/* ---- sending ------------------------------------------------------------------------ */

/* false if the client could not take it (gone, or not reading). */
static bool send_msg(struct ctl_client *c, const struct nlmsghdr *nlh)
{
	return send(c->lfd.fd, nlh, nlh->nlmsg_len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)nlh->nlmsg_len;
}

static void send_error(struct ctl_client *c, const struct nlmsghdr *req, int error, const char *msg)
{
	char buf[WB_CTL_MSG_MAX];

	send_msg(c, wb_ctl_error(buf, req, error, msg));
}

static void send_done(struct ctl_client *c, const struct nlmsghdr *req)
{
	char buf[64] = { 0 };
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int *status = mnl_nlmsg_put_extra_header(nlh, sizeof(int));

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = req->nlmsg_seq;
	*status = 0;
	send_msg(c, nlh);
}

/* ---- what the messages carry ----------------------------------------------------- */

/* out = now - base, counter by counter (the counter structures are arrays of u64 in all but name). */
static void subtract_counters(void *out, const void *now, const void *base, size_t size)
{
	const uint64_t *n = now, *b = base;
	uint64_t *o = out;

	for (size_t i = 0; i < size / sizeof(uint64_t); i++)
		o[i] = n[i] - b[i];
}

static void counters_since_reset(const struct ctl_server *srv, const struct wb_bond_counters *now,
				 struct wb_bond_counters *out)
{
	subtract_counters(out, now, &srv->base, sizeof(*out));
	out->reorder_held_max = now->reorder_held_max; /* a peak, not a count */
	/* The pool's gauges and its peak, as they are. */
	out->pool_bytes = now->pool_bytes;
	out->pool_in_use_bytes = now->pool_in_use_bytes;
	out->pool_high_water = now->pool_high_water;
}

static void uplink_counters_since_reset(const struct ctl_server *srv, const struct wb_uplink_status *u,
					struct wb_uplink_counters *out)
{
	static const struct wb_uplink_counters none;
	bool same = srv->ubase_generation[u->id] == u->generation;

	subtract_counters(out, &u->c, same ? &srv->ubase[u->id] : &none, sizeof(*out));
}

static bool put_bond(struct ctl_server *srv, struct nlmsghdr *nlh, uint64_t now)
{
	const struct bond_ctx *bc = srv->bc;
	const struct daemon *d = bc->d;
	struct wb_bond_status s;
	struct wb_bond_counters c;
	char key[WB_KEY_B64_LEN];

	wb_bond_status(bc->bond, &s);
	wb_key_to_base64(key, bc->conf->public_key);
	counters_since_reset(srv, &s.c, &c);
	mnl_attr_put_strz(nlh, WB_CTL_A_BOND_NAME, bc->conf->name);
	mnl_attr_put_strz(nlh, WB_CTL_A_ROLE, d->cfg.role == WB_ROLE_CLIENT ? "client" : "server");
	mnl_attr_put_strz(nlh, WB_CTL_A_TUN, bc->tun_name);
	mnl_attr_put_strz(nlh, WB_CTL_A_PEER, key);
	mnl_attr_put_u8(nlh, WB_CTL_A_SESSION, s.session);
	if (s.session_born_ns)
		mnl_attr_put_u64(nlh, WB_CTL_A_HANDSHAKE_AGO, now - s.session_born_ns);
	mnl_attr_put_strz(nlh, WB_CTL_A_SCHED_POLICY, s.scheduler);
	mnl_attr_put_u32(nlh, WB_CTL_A_SCHED_OFF, s.sched_off);
	mnl_attr_put_u32(nlh, WB_CTL_A_MTU, bc->mtu);
	mnl_attr_put_u64(nlh, WB_CTL_A_SEND_BUFFER, s.send_buffer);
	mnl_attr_put_u64(nlh, WB_CTL_A_RECEIVE_WINDOW, s.receive_window);
	mnl_attr_put_u64(nlh, WB_CTL_A_SEND_QUEUE, s.send_queue);
	mnl_attr_put_u64(nlh, WB_CTL_A_MEMORY, s.memory);
	mnl_attr_put_u64(nlh, WB_CTL_A_UPTIME, now - d->started_ns);
	/* Not since a reset: the device's are every bond's of this daemon, and one bond's reset is its own. */
	return wb_ctl_put_bond_counters(nlh, WB_CTL_A_COUNTERS, &c) &&
	       wb_ctl_put_device_counters(nlh, WB_CTL_A_DEVICE_COUNTERS, wb_device_counters(d->dev));
}

static bool put_uplink(struct ctl_server *srv, struct nlmsghdr *nlh, const struct wb_uplink_status *u, uint64_t now)
{
	struct uplink_info slot;
	bool client = uplinks_info(&srv->bc->d->uplinks, u->id, &slot); /* false on a server */
	struct nlattr *nest = mnl_attr_nest_start(nlh, WB_CTL_A_UPLINK);
	struct wb_uplink_counters c;
	char ep[WB_ENDPOINT_STRLEN];

	uplink_counters_since_reset(srv, u, &c);
	mnl_attr_put_strz(nlh, WB_CTL_U_NAME, u->name);
	mnl_attr_put_u32(nlh, WB_CTL_U_ID, u->id);
	mnl_attr_put_strz(nlh, WB_CTL_U_STATE, wb_uplink_state_name(u->state));
	if (u->state_why[0])
		mnl_attr_put_strz(nlh, WB_CTL_U_STATE_WHY, u->state_why);
	mnl_attr_put_u64(nlh, WB_CTL_U_STATE_AGE, now > u->state_since_ns ? now - u->state_since_ns : 0);
	mnl_attr_put_u8(nlh, WB_CTL_U_BACKUP, u->backup);
	mnl_attr_put_u8(nlh, WB_CTL_U_ENABLED, !client || slot.enabled);
	mnl_attr_put_u8(nlh, WB_CTL_U_IFACE_UP, !client || slot.iface_up);
	mnl_attr_put_u32(nlh, WB_CTL_U_WEIGHT, u->weight);
	if (client && slot.interface[0])
		mnl_attr_put_strz(nlh, WB_CTL_U_DEVICE, slot.interface);
	if (u->endpoint.family) {
		wb_endpoint_format(ep, &u->endpoint);
		mnl_attr_put_strz(nlh, WB_CTL_U_ENDPOINT, ep);
	}
	if (client && slot.socket_why && slot.socket_why[0])
		mnl_attr_put_strz(nlh, WB_CTL_U_SOCKET, slot.socket_why);
	mnl_attr_put_u64(nlh, WB_CTL_U_SRTT, u->srtt_ns);
	mnl_attr_put_u64(nlh, WB_CTL_U_MIN_RTT, u->min_rtt_ns);
	mnl_attr_put_u64(nlh, WB_CTL_U_RTTVAR, u->rttvar_ns);
	mnl_attr_put_u32(nlh, WB_CTL_U_LOSS_PPM, u->loss_ppm);
	mnl_attr_put_u64(nlh, WB_CTL_U_CWND, u->cwnd);
	mnl_attr_put_u64(nlh, WB_CTL_U_IN_FLIGHT, u->bytes_in_flight);
	mnl_attr_put_u64(nlh, WB_CTL_U_PACING_RATE, u->pacing_rate);
	mnl_attr_put_u32(nlh, WB_CTL_U_PMTU, u->pmtu);
	mnl_attr_put_u8(nlh, WB_CTL_U_PMTU_SEARCHING, u->pmtu_searching);
	if (!wb_ctl_put_uplink_counters(nlh, WB_CTL_U_COUNTERS, &c))
		return false;
	mnl_attr_nest_end(nlh, nest);
	return true;
}

/* ---- who holds the connections ---------------------------------------------------------- */

static struct ctl_census census(const struct ctl_server *srv)
{
	struct ctl_census n = { 0 };

	for (int i = 0; i < CTL_MAX_CLIENTS; i++) {
		const struct ctl_client *c = srv->clients[i];

		if (!c)
			continue;
		if (c->peer.privileged) {
			n.privileged++;
		} else {
			n.unprivileged++;
			n.unprivileged_monitors += c->monitor;
		}
	}
	return n;
}

/* ---- the commands ------------------------------------------------------------------ */

static void do_get_bond(struct ctl_client *c, const struct nlmsghdr *req)
{
	char buf[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh = wb_ctl_msg_start(buf, WB_CTL_CMD_GET_BOND, 0, req->nlmsg_seq);

	if (!put_bond(c->srv, nlh, loop_now()))
		send_error(c, req, EMSGSIZE, "the reply does not fit a message");
	else
		send_msg(c, nlh);
}

static void do_get_uplinks(struct ctl_client *c, const struct nlmsghdr *req)
{
	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++) {
		char buf[WB_CTL_MSG_MAX];
		struct nlmsghdr *nlh;
		struct wb_uplink_status u;

		if (!wb_bond_uplink_status(c->srv->bc->bond, i, &u))
			continue;
		nlh = wb_ctl_msg_start(buf, WB_CTL_CMD_GET_UPLINKS, NLM_F_MULTI, req->nlmsg_seq);
		mnl_attr_put_strz(nlh, WB_CTL_A_BOND_NAME, c->srv->bc->conf->name);
		if (put_uplink(c->srv, nlh, &u, loop_now()) && !send_msg(c, nlh))
			return; /* it stopped reading */
	}
	send_done(c, req);
}

static void do_reset_counters(struct ctl_client *c, const struct nlmsghdr *req)
{
	struct ctl_server *srv = c->srv;

	srv->base = *wb_bond_counters(srv->bc->bond);
	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink_status u;

		if (wb_bond_uplink_status(srv->bc->bond, i, &u)) {
			srv->ubase[i] = u.c;
			srv->ubase_generation[i] = u.generation;
		}
	}
	log_line(LOG_LVL_NOTICE, srv->bc->conf->name, NULL, "counters reset (uid %u)", (unsigned)c->peer.uid);
	send_error(c, req, 0, NULL);
}

static void do_set_sched(struct ctl_client *c, const struct nlmsghdr *req, const struct wb_ctl_msg *m)
{
	struct wb_bond *b = c->srv->bc->bond;
	const char *policy;
	struct wb_bond_status s;
	uint32_t off;
	char name[16];
	int rc;

	wb_bond_status(b, &s);
	policy = wb_ctl_str(m->a[WB_CTL_A_SCHED_POLICY], s.scheduler);
	off = s.sched_off;
	if (m->a[WB_CTL_A_SCHED_SET_ON])
		off &= ~mnl_attr_get_u32(m->a[WB_CTL_A_SCHED_SET_ON]);
	if (m->a[WB_CTL_A_SCHED_SET_OFF])
		off |= mnl_attr_get_u32(m->a[WB_CTL_A_SCHED_SET_OFF]);
	snprintf(name, sizeof(name), "%s", policy);
	rc = wb_bond_set_scheduler(b, name, off);
	if (rc) {
		send_error(c, req, -rc, "the scheduler refused the change");
		return;
	}
	log_line(LOG_LVL_NOTICE, c->srv->bc->conf->name, NULL, "scheduler %s, rules off 0x%x (uid %u)", name, off,
		 (unsigned)c->peer.uid);
	send_error(c, req, 0, NULL);
}

static void do_set_uplink(struct ctl_client *c, const struct nlmsghdr *req, const struct wb_ctl_msg *m)
{
	struct bond_ctx *bc = c->srv->bc;
	const char *name = mnl_attr_get_str(m->u[WB_CTL_U_NAME]);
	int i = wb_bond_find_uplink(bc->bond, name);
	struct wb_uplink_status u;
	struct uplink_info now = { .enabled = true, .iface_up = true };
	char msg[96];
	bool backup;
	uint32_t weight;

	if (i < 0) {
		snprintf(msg, sizeof(msg), "no uplink '%s' in bond %s", name, bc->conf->name);
		send_error(c, req, ENOENT, msg);
		return;
	}
	if (bc->d->cfg.role != WB_ROLE_CLIENT) {
		send_error(c, req, EPERM, "a server's uplinks are its client's: change them on the router");
		return;
	}
	wb_bond_uplink_status(bc->bond, (unsigned)i, &u);
	backup = m->u[WB_CTL_U_BACKUP] ? mnl_attr_get_u8(m->u[WB_CTL_U_BACKUP]) : u.backup;
	weight = m->u[WB_CTL_U_WEIGHT] ? mnl_attr_get_u32(m->u[WB_CTL_U_WEIGHT]) : u.weight;
	uplinks_set_role(&bc->d->uplinks, (unsigned)i, backup, weight);
	if (m->u[WB_CTL_U_ENABLED])
		uplinks_enable(&bc->d->uplinks, (unsigned)i, mnl_attr_get_u8(m->u[WB_CTL_U_ENABLED]), loop_now());
	if (m->u[WB_CTL_U_IFACE_UP])
		uplinks_set_iface_up(&bc->d->uplinks, (unsigned)i, mnl_attr_get_u8(m->u[WB_CTL_U_IFACE_UP]), loop_now());
	uplinks_info(&bc->d->uplinks, (unsigned)i, &now);
	log_line(LOG_LVL_NOTICE, bc->conf->name, name, "%s, weight %u, %s%s (uid %u)", backup ? "backup" : "active",
		 weight, now.enabled ? "enabled" : "disabled", now.iface_up ? "" : ", its interface down",
		 (unsigned)c->peer.uid);
	send_error(c, req, 0, NULL);
}

static void do_add_uplink(struct ctl_client *c, const struct nlmsghdr *req, const struct wb_ctl_msg *m)
{
	struct bond_ctx *bc = c->srv->bc;
	struct wb_conf_uplink up;
	char err[256]; /* as much as the CLI shows of it */
	int rc;

	rc = wb_config_runtime_uplink(&up, &bc->d->cfg, mnl_attr_get_str(m->u[WB_CTL_U_NAME]),
				      wb_ctl_str(m->u[WB_CTL_U_DEVICE], NULL),
				      wb_ctl_str(m->u[WB_CTL_U_SOURCE], NULL),
				      m->u[WB_CTL_U_FWMARK] ? mnl_attr_get_u32(m->u[WB_CTL_U_FWMARK]) : 0,
				      m->u[WB_CTL_U_BACKUP] && mnl_attr_get_u8(m->u[WB_CTL_U_BACKUP]),
				      m->u[WB_CTL_U_WEIGHT] ? mnl_attr_get_u32(m->u[WB_CTL_U_WEIGHT]) : WB_WEIGHT_DEFAULT, err,
				      sizeof(err));
	if (!rc)
		rc = uplinks_add(&bc->d->uplinks, &up, err, sizeof(err));
	if (rc) {
		send_error(c, req, -rc, err);
		return;
	}
	log_line(LOG_LVL_NOTICE, bc->conf->name, up.name, "added (uid %u)", (unsigned)c->peer.uid);
	send_error(c, req, 0, NULL);
}

static void do_del_uplink(struct ctl_client *c, const struct nlmsghdr *req, const struct wb_ctl_msg *m)
{
	struct bond_ctx *bc = c->srv->bc;
	const char *name = mnl_attr_get_str(m->u[WB_CTL_U_NAME]);
	int i = wb_bond_find_uplink(bc->bond, name), rc;
	char err[160];

	if (i < 0) {
		snprintf(err, sizeof(err), "no uplink '%s' in bond %s", name, bc->conf->name);
		send_error(c, req, ENOENT, err);
		return;
	}
	rc = uplinks_remove(&bc->d->uplinks, (unsigned)i, err, sizeof(err));
	if (rc) {
		send_error(c, req, -rc, err);
		return;
	}
	log_line(LOG_LVL_NOTICE, bc->conf->name, NULL, "uplink %s removed (uid %u)", name, (unsigned)c->peer.uid);
	send_error(c, req, 0, NULL);
}

static void do_monitor(struct ctl_client *c, const struct nlmsghdr *req)
{
	struct ctl_server *srv = c->srv;
	struct ctl_census now = census(srv);
	char msg[128];

	if (c->monitor) { /* subscribed already */
		send_error(c, req, 0, NULL);
		return;
	}
	if (!ctl_monitor_allowed(&now, c->peer.privileged)) {
		snprintf(msg, sizeof(msg), "%d monitors of peers who may not change things already listen: no more",
			 now.unprivileged_monitors);
		if (log_allowed(&srv->refused_log, loop_now()))
			log_line(LOG_LVL_WARNING, srv->bc->conf->name, NULL, "control: monitor of uid %u refused: %s",
				 (unsigned)c->peer.uid, msg);
		send_error(c, req, EBUSY, msg);
		return;
	}
	if (log_allowed(&srv->client_log, loop_now()))
		log_line(LOG_LVL_INFO, srv->bc->conf->name, NULL, "control: a monitor of uid %u listens", (unsigned)c->peer.uid);
	srv->monitors++;
	c->monitor = true;
	send_error(c, req, 0, NULL);
}

static bool changes(uint8_t cmd)
{
	return cmd == WB_CTL_CMD_RESET_COUNTERS || cmd == WB_CTL_CMD_SET_SCHED || cmd == WB_CTL_CMD_SET_UPLINK ||
	       cmd == WB_CTL_CMD_ADD_UPLINK || cmd == WB_CTL_CMD_DEL_UPLINK;
}

static void handle(struct ctl_client *c, const struct nlmsghdr *req, size_t len)
{
	struct wb_ctl_msg m;
	char err[160];
	int rc = wb_ctl_parse(req, len, WB_CTL_REQUEST, &m, err, sizeof(err));

	if (rc) {
		send_error(c, len >= sizeof(*req) ? req : NULL, -rc, err);
		return;
	}
	c->last_request_ns = loop_now(); /* a request, not any datagram: garbage keeps no slot */
	if (changes(m.cmd) && !c->peer.privileged) {
		send_error(c, req, EPERM,
			   c->srv->admin_gid == PEER_NO_GROUP ? "changes need root"
							      : "changes need root or control.admin_group");
		return;
	}
	switch (m.cmd) {
	case WB_CTL_CMD_GET_BOND:
		do_get_bond(c, req);
		break;
	case WB_CTL_CMD_GET_UPLINKS:
		do_get_uplinks(c, req);
		break;
	case WB_CTL_CMD_RESET_COUNTERS:
		do_reset_counters(c, req);
		break;
	case WB_CTL_CMD_SET_SCHED:
		do_set_sched(c, req, &m);
		break;
	case WB_CTL_CMD_SET_UPLINK:
		do_set_uplink(c, req, &m);
		break;
	case WB_CTL_CMD_ADD_UPLINK:
		do_add_uplink(c, req, &m);
		break;
	case WB_CTL_CMD_DEL_UPLINK:
		do_del_uplink(c, req, &m);
		break;
	case WB_CTL_CMD_MONITOR:
		do_monitor(c, req);
		break;
	default:
		send_error(c, req, EOPNOTSUPP, "not a request");
	}
}

/* ---- connections ------------------------------------------------------------------- */

static void drop_client(struct ctl_client *c)
{
	struct ctl_server *srv = c->srv;
	struct daemon *d = srv->bc->d;

	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		if (srv->clients[i] == c)
			srv->clients[i] = NULL;
	srv->monitors -= c->monitor;
	loop_del(&d->loop, &c->lfd);
	close(c->lfd.fd);
	free(c);
}

static void on_client(struct loop_fd *f, uint32_t events)
{
	struct ctl_client *c = container_of(f, struct ctl_client, lfd);
	char buf[WB_CTL_MSG_MAX] __attribute__((aligned(4)));
	ssize_t n;

	if (events & (EPOLLHUP | EPOLLERR)) {
		drop_client(c);
		return;
	}
	n = recv(f->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		drop_client(c);
		return;
	}
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf)) {
		send_error(c, NULL, EMSGSIZE, "request larger than a control message may be");
		return;
	}
	handle(c, (const struct nlmsghdr *)buf, (size_t)n);
}

/* ---- idle connections ------------------------------------------------------------------ */

/* The earliest time a client is due to be closed for idleness; UINT64_MAX if none is. */
uint64_t ctl_idle_due(const struct ctl_server *srv)
{
	uint64_t next = UINT64_MAX;

	for (int i = 0; i < CTL_MAX_CLIENTS; i++) {
		const struct ctl_client *c = srv->clients[i];

		if (c && ctl_idle_deadline(c->last_request_ns, c->monitor) < next)
			next = ctl_idle_deadline(c->last_request_ns, c->monitor);
	}
	return next;
}

/* Closes a client that sent no request for CTL_IDLE_TIMEOUT_NS, telling it why first. */
static void close_idle(struct ctl_client *c)
{
	struct ctl_server *srv = c->srv;
	unsigned secs = (unsigned)(CTL_IDLE_TIMEOUT_NS / WB_NSEC_PER_SEC);
	char msg[64];

	snprintf(msg, sizeof(msg), "no request for %u s: the connection is closed", secs);
	send_error(c, NULL, ETIMEDOUT, msg);
	if (log_allowed(&srv->client_log, loop_now()))
		log_line(LOG_LVL_INFO, srv->bc->conf->name, NULL, "control: connection of uid %u closed: no request for %u s",
			 (unsigned)c->peer.uid, secs);
	drop_client(c);
}

void ctl_close_idle(struct ctl_server *srv, uint64_t now)
{
	for (int i = 0; i < CTL_MAX_CLIENTS; i++) {
		struct ctl_client *c = srv->clients[i];

		if (c && ctl_idle_deadline(c->last_request_ns, c->monitor) <= now)
			close_idle(c);
	}
}

/* ---- accepting ---------------------------------------------------------------------- */

/*
 * A connection there is no slot for is told why (a datagram with seq 0,
 * which a client reads as the answer to whatever it sent) and closed.
 */
static void refuse(struct ctl_server *srv, int fd, const struct peer_cred *peer, const struct ctl_census *now)
{
	char buf[WB_CTL_MSG_MAX], msg[128];
	const struct nlmsghdr *nlh;

	if (peer->privileged)
		snprintf(msg, sizeof(msg), "all %d control connections are in use", CTL_MAX_CLIENTS);
	else
		snprintf(msg, sizeof(msg), "the %d control connections open to peers who may not change things are in use",
			 now->unprivileged);
	nlh = wb_ctl_error(buf, NULL, EBUSY, msg);
	send(fd, nlh, nlh->nlmsg_len, MSG_DONTWAIT | MSG_NOSIGNAL);
	close(fd);
	if (log_allowed(&srv->refused_log, loop_now()))
		log_line(LOG_LVL_WARNING, srv->bc->conf->name, NULL, "control: connection of uid %u refused: %s",
			 (unsigned)peer->uid, msg);
}

/* Keeps connection fd of peer in a free slot; -errno if it cannot. */
static int add_client(struct ctl_server *srv, int fd, const struct peer_cred *peer)
{
	struct daemon *d = srv->bc->d;
	struct ctl_client *c;
	int slot = -1, rc;

	for (int i = 0; i < CTL_MAX_CLIENTS && slot < 0; i++)
		if (!srv->clients[i])
			slot = i;
	if (slot < 0)
		return -EBUSY;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = (struct ctl_client){ .srv = srv, .lfd = { .fd = fd, .cb = on_client }, .peer = *peer,
				  .last_request_ns = loop_now() };
	rc = loop_add(&d->loop, &c->lfd, EPOLLIN);
	if (rc) {
		free(c);
		return rc;
	}
	srv->clients[slot] = c;
	return 0;
}

static void on_accept(struct loop_fd *f, uint32_t events)
{
	struct ctl_server *srv = container_of(f, struct ctl_server, lfd);
	struct ctl_census now;
	struct peer_cred peer;
	int fd;

	(void)events;
	fd = accept4(f->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	peer_cred_judge(fd, srv->admin_gid, &peer);
	log_line(LOG_LVL_DEBUG, srv->bc->conf->name, NULL, "control connection of uid %u (pid %d): %s (%s)",
		 (unsigned)peer.uid, (int)peer.pid, peer.privileged ? "may change" : "may read", peer.why);
	now = census(srv);
	if (!ctl_slot_allowed(&now, peer.privileged)) {
		refuse(srv, fd, &peer, &now);
		return;
	}
	if (add_client(srv, fd, &peer))
		close(fd);
}

/* ---- the socket file ----------------------------------------------------------------- */

/* The gid of group name in gid, (gid_t)-1 if name is ""; -ENOENT if there is no such group. */
static int group_gid(const char *name, gid_t *gid)
{
	const struct group *g;

	*gid = (gid_t)-1;
	if (!name[0])
		return 0;
	g = getgrnam(name);
	if (!g)
		return -ENOENT;
	*gid = g->gr_gid;
	return 0;
}

/*
 * Binds fd at the socket file: mode 0600, the daemon's user's alone, or
 * with control.group 0660 and that group's (sockfile.h: nothing followed,
 * nothing but our socket touched).
 */
static int bind_socket_file(const struct daemon *d, struct ctl_server *srv, int fd, gid_t gid, char *err,
			    size_t errlen)
{
	int rc = sockfile_bind(&srv->file, fd, err, errlen);
	size_t len;

	if (rc || gid == (gid_t)-1)
		return rc;
	rc = sockfile_share(&srv->file, gid, 0660, err, errlen);
	len = strlen(err);
	if (rc == -EPERM && len < errlen)
		snprintf(err + len, errlen - len, " (giving it to group %s takes CAP_CHOWN, or the daemon's user in that group)",
			 d->cfg.control.group);
	return rc;
}

static int open_server(struct daemon *d, struct bond_ctx *bc, struct ctl_server *srv, char *err, size_t errlen)
{
	char name[WB_NAME_MAX + 8];
	gid_t gid;
	int fd, rc;

	srv->bc = bc;
	srv->lfd = (struct loop_fd){ .fd = -1, .cb = on_accept };
	srv->file.dirfd = -1;
	if (group_gid(d->cfg.control.group, &gid)) {
		snprintf(err, errlen, "control.group: no such group '%s'", d->cfg.control.group);
		return -ENOENT;
	}
	if (group_gid(d->cfg.control.admin_group, &srv->admin_gid)) {
		snprintf(err, errlen, "control.admin_group: no such group '%s'", d->cfg.control.admin_group);
		return -ENOENT;
	}
	snprintf(name, sizeof(name), "%s.sock", bc->conf->name);
	rc = sockfile_open(&srv->file, d->cfg.control.directory, name, err, errlen);
	if (!rc)
		rc = sockfile_clear_stale(&srv->file, SOCK_SEQPACKET, err, errlen);
	if (rc)
		return rc;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: socket: %s", srv->file.path, strerror(-rc));
		return rc;
	}
	srv->lfd.fd = fd; /* from here on ctl_stop closes it */
	rc = bind_socket_file(d, srv, fd, gid, err, errlen);
	if (!rc && listen(fd, 8)) {
		rc = -errno;
		snprintf(err, errlen, "%s: listen: %s", srv->file.path, strerror(-rc));
	}
	if (!rc && (rc = loop_add(&d->loop, &srv->lfd, EPOLLIN)))
		snprintf(err, errlen, "%s: %s", srv->file.path, strerror(-rc));
	return rc;
}

int ctl_start(struct daemon *d)
{
	for (int i = 0; i < d->n_bonds; i++) {
		struct bond_ctx *bc = &d->bonds[i];
		char err[320] = "";
		int rc = open_server(d, bc, &bc->ctl, err, sizeof(err));

		if (rc) {
			log_line(LOG_LVL_ERR, bc->conf->name, NULL, "control socket: %s%s", err,
				 rc == -EADDRINUSE ? " (another daemon runs this bond)" : "");
			return rc;
		}
	}
	return 0;
}

void ctl_stop(struct daemon *d)
{
	for (int i = 0; i < d->n_bonds; i++) {
		struct ctl_server *srv = &d->bonds[i].ctl;

		if (!srv->bc)
			continue; /* never opened */
		for (int k = 0; k < CTL_MAX_CLIENTS; k++)
			if (srv->clients[k])
				drop_client(srv->clients[k]);
		if (srv->lfd.fd >= 0) {
			loop_del(&d->loop, &srv->lfd);
			close(srv->lfd.fd);
			srv->lfd.fd = -1;
		}
		sockfile_close(&srv->file); /* the file goes only if it is still the socket bound */
	}
}

/* ---- events ---------------------------------------------------------------------------- */

void ctl_broadcast(struct ctl_server *srv, const struct nlmsghdr *nlh)
{
	for (int i = 0; i < CTL_MAX_CLIENTS; i++) {
		struct ctl_client *c = srv->clients[i];

		if (c && c->monitor && !send_msg(c, nlh) && !srv->events_dropped++)
			log_line(LOG_LVL_WARNING, srv->bc->conf->name, NULL,
				 "a monitor (uid %u) does not read its events: dropping them", (unsigned)c->peer.uid);
	}
}
