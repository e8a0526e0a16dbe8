// SPDX-License-Identifier: MIT
#include "daemon.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "config_classes.h"
#include "config_groups.h"
#include "notify.h"
#include "nsec.h"
#include "tso.h"
#include "tun.h"

#define TUN_READS_PER_WAKEUP 64
/*
 * The kernel's queue in front of the TUN device, in packets. Its default
 * of 500 is 40 ms at 200 Mbit/s, and a daemon kept off the CPU that long
 * by the rest of a busy router loses the inner flows' packets there, to a
 * drop-tail queue the AQM never sees. 1000 is WireGuard's and Ethernet's.
 */
#define TUN_TXQUEUELEN 1000
#define SOCK_READS_PER_WAKEUP 4
#define STATUS_INTERVAL_NS (5 * WB_NSEC_PER_SEC)


/* ---- the library's callbacks ----------------------------------------------- */

/* The library's socket number sock: a client's uplink slot, the server's one socket; NULL if not open. */
static struct udp_sock *open_sock(struct daemon *d, unsigned sock)
{
	if (d->cfg.role == WB_ROLE_CLIENT)
		return uplinks_open_socket(&d->uplinks, sock);
	return d->server.udp.lfd.fd >= 0 ? &d->server.udp : NULL;
}

static void op_send(void *ctx, unsigned sock, const struct wb_endpoint *to, const uint8_t *data, size_t len,
		    uint8_t dscp)
{
	struct udp_sock *s = open_sock(ctx, sock);

	if (s)
		udp_queue(s, to, data, len, dscp);
}

/* The library seals its data messages in the socket's send batch: no copy on their way out. */
static uint8_t *op_tx_buffer(void *ctx, unsigned sock, size_t len)
{
	struct udp_sock *s = open_sock(ctx, sock);

	return s ? udp_tx_slot(s, len) : NULL;
}

/* Writes what was gathered for the device of gro_owner. */
static void write_gathered(struct daemon *d)
{
	struct bond_ctx *bc = d->gro_owner;
	uint64_t errors;
	int err = 0;

	if (!bc || !d->gro->n)
		return;
	errors = bc->tun_write_errors;
	tun_write_gathered(bc->tun.fd, d->gro, &bc->tun_tx_io, &bc->tun_write_errors, &err);
	if (bc->tun_write_errors != errors && log_allowed(&bc->write_limit, loop_now()))
		log_line(LOG_LVL_WARNING, bc->conf->name, NULL, "writing to %s failed: %s", bc->tun_name, strerror(err));
}

static void op_deliver(void *ctx, struct wb_bond *b, const uint8_t *ip, size_t len)
{
	struct bond_ctx *bc = wb_bond_user(b);
	struct daemon *d = ctx;

	if (d->gro_owner != bc) {
		write_gathered(d);
		d->gro_owner = bc;
	}
	if (wb_gro_add(d->gro, ip, len))
		return;
	write_gathered(d);
	wb_gro_add(d->gro, ip, len); /* an empty gathering takes any IP packet */
}

static void op_random(void *ctx, void *buf, size_t len)
{
	uint8_t *p = buf;

	(void)ctx;
	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_line(LOG_LVL_ERR, NULL, NULL, "getrandom failed: %s", strerror(errno));
			abort(); /* no randomness, no keys: nothing safe is left to do */
		}
		p += n;
		len -= (size_t)n;
	}
}

static void op_log(void *ctx, enum wb_log_level level, const char *bond, const char *uplink, const char *msg)
{
	(void)ctx;
	log_line((int)level, bond, uplink, "%s", msg);
}

/* Read at each initiation, not once at start: NTP may set the clock of a router without a battery any time. */
static uint64_t op_wall_clock(void *ctx)
{
	struct timespec real;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &real);
	return (uint64_t)real.tv_sec * WB_NSEC_PER_SEC + (uint64_t)real.tv_nsec;
}

static void op_event(void *ctx, struct wb_bond *b, const struct wb_event *ev)
{
	struct bond_ctx *bc = wb_bond_user(b);

	(void)ctx;
	ctl_on_event(&bc->ctl, ev, loop_now());
}

static const struct wb_device_ops daemon_ops = {
	.send = op_send, .deliver = op_deliver, .random = op_random, .log = op_log, .wall_clock = op_wall_clock,
	.event = op_event, .tx_buffer = op_tx_buffer,
};

/* ---- events ------------------------------------------------------------------ */

static void flush_sockets(struct daemon *d)
{
	uplinks_flush(&d->uplinks);
	if (d->server.udp.tx_n)
		udp_flush(&d->server.udp);
}

struct tun_read {
	struct bond_ctx *bc;
	uint64_t now;
};

static void send_ip(void *ctx, uint8_t *ip, size_t len)
{
	struct tun_read *r = ctx;

	wb_bond_send_ip(r->bc->bond, r->now, ip, len);
}

static void on_tun(struct loop_fd *f, uint32_t events)
{
	struct bond_ctx *bc = container_of(f, struct bond_ctx, tun);
	struct tun_read r = { bc, loop_now() };

	(void)events;
	for (int i = 0; i < TUN_READS_PER_WAKEUP; i++) {
		ssize_t n = read(f->fd, bc->d->tun_buf, TUN_READ_SIZE);
		int packets;

		bc->tun_rx_io.calls++;
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				bc->tun_read_errors++;
			break;
		}
		/* A packet, or a large segment cut into packets, each sent as read. */
		packets = wb_tso_split(bc->d->tun_buf, (size_t)n, send_ip, &r);
		if (packets < 0) {
			bc->tun_read_errors++;
			continue;
		}
		bc->tun_rx_io.packets += (uint64_t)packets;
		bc->d->packets_in += (uint64_t)packets;
	}
	flush_sockets(bc->d);
}

static void on_socket(struct loop_fd *f, uint32_t events)
{
	struct sock_ctx *sc = container_of(f, struct sock_ctx, udp.lfd);
	struct daemon *d = sc->owner;
	struct udp_rx rx;

	(void)events;
	for (int round = 0; round < SOCK_READS_PER_WAKEUP; round++) {
		uint64_t now;
		int rc = udp_recv(&sc->udp, &rx);

		if (rc < 0 && log_allowed(&sc->error_limit, loop_now()))
			log_line(LOG_LVL_WARNING, NULL, sc->uplink, "receive failed: %s", strerror(-rc));
		if (rc < 0 || !rx.n)
			break;
		now = loop_now();
		d->packets_in += (uint64_t)rx.n;
		for (int i = 0; i < rx.n; i++)
			wb_device_receive(d->dev, now, sc->udp.index, &rx.from[i], rx.buf[i], rx.len[i]);
		if (rx.n < UDP_BATCH)
			break;
	}
	flush_sockets(d);
}

static void on_signal(struct loop_fd *f, uint32_t events)
{
	struct daemon *d = container_of(f, struct daemon, loop.signals);
	struct signalfd_siginfo si;

	(void)events;
	while (read(f->fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGUSR1:
			status_log(d);
			break;
		case SIGHUP:
			daemon_reload(d);
			break;
		default:
			log_line(LOG_LVL_NOTICE, NULL, NULL, "%s: stopping", strsignal((int)si.ssi_signo));
			d->loop.stop = true;
		}
	}
}

/* ---- the service manager ------------------------------------------------------ */

/* The STATUS= line: uplinks in use and the bond's throughput over the last interval. */
void daemon_send_status(struct daemon *d, uint64_t now)
{
	uint64_t tx = 0, rx = 0, secs = STATUS_INTERVAL_NS / WB_NSEC_PER_SEC;
	const char *failed = d->reload_error;
	int up = 0, all = 0;

	for (int i = 0; i < d->n_bonds; i++) {
		const struct wb_bond_counters *c = wb_bond_counters(d->bonds[i].bond);

		tx += c->tun_rx_bytes;
		rx += c->tun_tx_bytes;
		for (unsigned k = 0; k < WB_MAX_UPLINKS; k++) {
			struct wb_uplink_status u;

			if (wb_bond_uplink_status(d->bonds[i].bond, k, &u)) {
				all++;
				up += u.usable;
			}
		}
	}
	/* A failed reload leads every status until a reload succeeds: "" when none failed. */
	notify_status("%s%s%s%d of %d uplinks up; %s %.1f Mbit/s, %s %.1f Mbit/s", failed[0] ? "reload failed: " : "",
		      failed, failed[0] ? "; " : "", up, all,
		      d->cfg.role == WB_ROLE_CLIENT ? "up" : "to routers", (tx - d->status_tx_bytes) * 8.0 / 1e6 / secs,
		      d->cfg.role == WB_ROLE_CLIENT ? "down" : "from routers", (rx - d->status_rx_bytes) * 8.0 / 1e6 / secs);
	d->status_tx_bytes = tx;
	d->status_rx_bytes = rx;
	d->next_status_ns = now + STATUS_INTERVAL_NS;
}

/*
 * Before each wait: the timers due run (timers.c), what they and the
 * events made is written out, and the loop sleeps until the next one due.
 */
static uint64_t prepare(struct loop *l)
{
	struct daemon *d = container_of(l, struct daemon, loop);
	uint64_t now = loop_now();

	daemon_timers_run(d, now);
	flush_sockets(d);
	write_gathered(d);
	/* Busy: the loop holds, and pacing deadlines may wait as long (a burst each). */
	d->loop.hold_ns = batching_hold(&d->batching, now, d->packets_in);
	wb_device_set_pacing_slack(d->dev, d->loop.hold_ns);
	return daemon_timers_due(d);
}

/* ---- setup --------------------------------------------------------------------- */

static void timers_from_config(struct wb_timers *t, const struct wb_conf_timers *c)
{
	const struct wb_timers def = WB_TIMERS_DEFAULT;

	*t = def;
	conf_table_to_lib(&conf_timers, c, t);
	/* A session lives as long past its renewal time as by default (WireGuard's 120 and 180 s). */
	t->reject_after_ns = t->rekey_after_ns + (def.reject_after_ns - def.rekey_after_ns);
}

/*
 * The cap on the packet buffers of all the bonds together: the setting, or
 * a quarter of the machine's memory, so that no number of routers, whatever
 * they send or hold back, can drive the daemon out of memory through its
 * buffers, and the rest stays for the kernel's own buffers (sockets, the TUN
 * devices' queues) and everything else. 0 (no cap but each bond's own) if
 * the memory's size is not known.
 */
static uint64_t pool_limit(const struct daemon *d, const char **why)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	if (d->cfg.transport.pool_limit_mb) {
		*why = "transport.pool_limit_mb";
		return (uint64_t)d->cfg.transport.pool_limit_mb << 20;
	}
	if (pages <= 0 || page <= 0) {
		*why = "the memory's size is not known";
		return 0;
	}
	*why = "a quarter of the memory";
	return (uint64_t)pages * (uint64_t)page / 4;
}

static int create_device(struct daemon *d)
{
	struct wb_device_params p = {
		.server = d->cfg.role == WB_ROLE_SERVER,
		.cipher = d->cfg.cipher,
	};
	const char *why;
	int rc;

	memcpy(p.private_key, d->cfg.private_key, WB_KEY_LEN);
	wb_x25519_public(d->own_public_key, d->cfg.private_key);
	timers_from_config(&p.timers, &d->cfg.timers);
	p.pool_limit = pool_limit(d, &why);
	if (p.pool_limit)
		log_line(LOG_LVL_INFO, d->cfg.name, NULL, "packet buffers of all bonds: at most %llu MiB (%s)",
			 (unsigned long long)(p.pool_limit >> 20), why);
	else
		log_line(LOG_LVL_WARNING, d->cfg.name, NULL, "packet buffers of all bonds: no cap (%s)", why);
	rc = wb_device_new(&d->dev, &p, &daemon_ops, d);
	wb_wipe(p.private_key, sizeof(p.private_key));
	wb_wipe(d->cfg.private_key, sizeof(d->cfg.private_key));
	if (rc)
		log_line(LOG_LVL_ERR, NULL, NULL, "%s: the private key is not usable", d->cfg.path);
	return rc;
}

static int configure_tun(struct daemon *d, struct bond_ctx *bc)
{
	const struct wb_conf_tun *t = &bc->conf->tun;
	uint32_t mtu;
	int rc;

	rc = wb_rtnl_link_get(d->rtnl, bc->tun_name, &bc->tun_ifindex, &mtu);
	if (!rc)
		rc = wb_rtnl_link_set(d->rtnl, bc->tun_ifindex, bc->mtu, true);
	if (!rc)
		rc = wb_rtnl_link_set_txqlen(d->rtnl, bc->tun_ifindex, TUN_TXQUEUELEN);
	for (int i = 0; !rc && i < t->n_address; i++)
		rc = wb_rtnl_addr_add(d->rtnl, bc->tun_ifindex, &t->address[i]);
	/* Routes need the link up: they come last. */
	for (int i = 0; !rc && i < bc->conf->n_routes; i++) {
		rc = wb_rtnl_route_add(d->rtnl, bc->tun_ifindex, &bc->conf->routes[i], 0, 0);
		if (!rc)
			bc->routes_added++;
	}
	if (rc)
		log_line(LOG_LVL_ERR, bc->conf->name, NULL, "configuring %s: %s%s%s", bc->tun_name, strerror(-rc),
			 *wb_rtnl_error(d->rtnl) ? ": " : "", wb_rtnl_error(d->rtnl));
	return rc;
}

static void add_allowed(struct wb_bond_params *p, const struct wb_prefix *pre)
{
	struct wb_ip_prefix *a;

	if (p->n_allowed == WB_MAX_ALLOWED)
		return;
	a = &p->allowed[p->n_allowed++];
	a->family = pre->family == AF_INET ? 4 : 6;
	a->len = pre->len;
	memcpy(a->addr, pre->addr, sizeof(a->addr));
}

/* A server takes from a router only its routed prefixes and the tunnel's own subnet. */
static void allowed_sources(const struct wb_conf_peer *peer, struct wb_bond_params *p)
{
	for (int i = 0; i < peer->n_routes; i++)
		add_allowed(p, &peer->routes[i]);
	for (int i = 0; i < peer->tun.n_address; i++)
		add_allowed(p, &peer->tun.address[i]);
}

static void tuning_from_config(struct wb_bond_tuning *t, const struct wb_config *cfg, uint32_t mtu)
{
	*t = (struct wb_bond_tuning){ .mtu = mtu, .sched_off = cfg->scheduler.off };
	conf_table_to_lib(&conf_transport, &cfg->transport, t);
	conf_table_to_lib(&conf_scheduler, &cfg->scheduler, t);
	conf_classes_to_lib(&cfg->classes, &t->classes);
}

static void bond_params(struct daemon *d, const struct wb_conf_peer *peer, struct bond_ctx *bc, struct wb_bond_params *p)
{
	memset(p, 0, sizeof(*p));
	tuning_from_config(&p->tuning, &d->cfg, bc->mtu_cap);
	snprintf(p->name, sizeof(p->name), "%s", peer->name);
	memcpy(p->public_key, peer->public_key, WB_KEY_LEN);
	memcpy(p->preshared_key, peer->preshared_key, WB_KEY_LEN);
	p->user = bc;
	if (d->cfg.role != WB_ROLE_CLIENT) {
		allowed_sources(peer, p);
		return;
	}
	udp_endpoint_from_sockaddr(&p->server, &d->cfg.server);
	p->n_uplinks = d->cfg.n_uplinks;
	for (int i = 0; i < d->cfg.n_uplinks; i++) {
		snprintf(p->uplinks[i].name, sizeof(p->uplinks[i].name), "%s", d->cfg.uplinks[i].name);
		p->uplinks[i].backup = d->cfg.uplinks[i].backup;
		p->uplinks[i].weight = (uint16_t)d->cfg.uplinks[i].weight;
	}
}

/* The library has the preshared key now; the configuration keeps its hash only. */
static void keep_only_psk_digest(struct bond_ctx *bc, struct wb_conf_peer *peer)
{
	if (wb_hash2(bc->psk_digest, peer->preshared_key, WB_KEY_LEN, NULL, 0))
		memset(bc->psk_digest, 0, sizeof(bc->psk_digest)); /* no hash: a reload sees the key as changed */
	wb_wipe(peer->preshared_key, sizeof(peer->preshared_key));
}

static int start_bond(struct daemon *d, int i)
{
	struct bond_ctx *bc = &d->bonds[i];
	struct wb_bond_params p;
	int rc, fd;

	bc->d = d;
	bc->conf = &d->cfg.peers[i];
	bc->tun.fd = -1;
	daemon_choose_mtu(d, bc);
	bond_params(d, bc->conf, bc, &p);
	rc = wb_device_add_bond(d->dev, &p, &bc->bond);
	wb_wipe(&p, sizeof(p)); /* it held the preshared key */
	keep_only_psk_digest(bc, &d->cfg.peers[i]);
	if (rc) {
		log_line(LOG_LVL_ERR, bc->conf->name, NULL, "cannot create the bond: %s", strerror(-rc));
		return rc;
	}
	fd = tun_open(bc->conf->tun.name, bc->tun_name, &bc->offload);
	if (fd < 0) {
		log_line(LOG_LVL_ERR, bc->conf->name, NULL, "cannot create TUN device %s: %s", bc->conf->tun.name,
			 strerror(-fd));
		return fd;
	}
	bc->tun = (struct loop_fd){ .fd = fd, .cb = on_tun };
	rc = configure_tun(d, bc);
	if (!rc)
		rc = loop_add(&d->loop, &bc->tun, EPOLLIN);
	if (!rc)
		log_line(LOG_LVL_NOTICE, bc->conf->name, NULL, "%s up, mtu %u%s", bc->tun_name, bc->mtu,
			 bc->offload ? "" : ", without segmentation offload");
	return rc;
}

/* The largest inner MTU plus the tunnel's bytes; on top, a packet's tunnel bytes and acks again, to spare. */
static uint32_t datagram_size(const struct daemon *d)
{
	uint32_t largest = UPLINK_MTU_DEFAULT;

	for (int i = 0; i < d->cfg.n_peers; i++)
		if (d->cfg.peers[i].tun.mtu > largest)
			largest = d->cfg.peers[i].tun.mtu;
	return largest + WB_TUNNEL_OVERHEAD + WB_TUNNEL_BYTES_WITH_ACKS;
}

/* The server's one socket; a client's are its uplinks'. */
static int start_server_socket(struct daemon *d)
{
	struct sock_ctx *sc = &d->server;
	char why[128] = "";
	int rc;

	rc = udp_init(&sc->udp, 0, datagram_size(d));
	if (!rc)
		rc = udp_open_server(&sc->udp, &d->cfg.listen, why, sizeof(why));
	if (rc) {
		log_line(LOG_LVL_ERR, d->cfg.name, NULL, "%s", why[0] ? why : strerror(-rc));
		return rc;
	}
	sc->udp.lfd.cb = on_socket;
	return loop_add(&d->loop, &sc->udp.lfd, EPOLLIN);
}

/* A client's uplinks, given what they need of the daemon: they call nothing back but on_socket. */
static int start_uplinks(struct daemon *d)
{
	const struct uplinks_env env = {
		.loop = &d->loop,
		.rtnl = d->rtnl,
		.bond = d->bonds[0].bond,
		.cfg = &d->cfg,
		.datagram_size = datagram_size(d),
		.owner = d,
		.on_readable = on_socket,
	};

	return uplinks_start(&d->uplinks, &env);
}

int daemon_start(struct daemon *d)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, 0 };
	int rc;

	d->started_ns = loop_now();
	d->server = (struct sock_ctx){ .owner = d, .udp.lfd.fd = -1 };
	rc = loop_init(&d->loop, signals);
	if (!rc) {
		d->loop.signals.cb = on_signal;
		rc = loop_add(&d->loop, &d->loop.signals, EPOLLIN);
	}
	if (rc) {
		log_line(LOG_LVL_ERR, NULL, NULL, "cannot set up the event loop: %s", strerror(-rc));
		return rc;
	}
	rc = wb_rtnl_open(&d->rtnl);
	if (rc) {
		log_line(LOG_LVL_ERR, NULL, NULL, "cannot open rtnetlink: %s", strerror(-rc));
		return rc;
	}
	d->tun_buf = malloc(TUN_READ_SIZE);
	d->gro = malloc(sizeof(*d->gro));
	if (!d->tun_buf || !d->gro) {
		log_line(LOG_LVL_ERR, NULL, NULL, "cannot allocate the TUN buffers: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	wb_gro_clear(d->gro);
	rc = create_device(d);
	if (!rc && d->cfg.role == WB_ROLE_SERVER)
		rc = start_server_socket(d);
	for (int i = 0; !rc && i < d->cfg.n_peers; i++) {
		rc = start_bond(d, i);
		d->n_bonds = i + 1;
	}
	if (!rc && d->cfg.role == WB_ROLE_CLIENT)
		rc = start_uplinks(d);
	if (!rc)
		rc = ctl_start(d);
	d->watchdog_ns = notify_init();
	if (!rc)
		log_line(LOG_LVL_NOTICE, d->cfg.name, NULL, "%s started, %d %s", d->cfg.role == WB_ROLE_CLIENT ? "client" : "server",
			 d->cfg.role == WB_ROLE_CLIENT ? d->cfg.n_uplinks : d->cfg.n_peers,
			 d->cfg.role == WB_ROLE_CLIENT ? "uplinks" : "peers");
	return rc;
}

/* ---- reloading (SIGHUP) ------------------------------------------------------------ */

static void reload_scheduler(struct daemon *d, const struct wb_config *next)
{
	if (!strcmp(next->scheduler.policy, d->cfg.scheduler.policy) && next->scheduler.off == d->cfg.scheduler.off)
		return;
	d->cfg.scheduler = next->scheduler;
	for (int i = 0; i < d->n_bonds; i++)
		wb_bond_set_scheduler(d->bonds[i].bond, d->cfg.scheduler.policy, d->cfg.scheduler.off);
	log_line(LOG_LVL_NOTICE, d->cfg.name, NULL, "reload: scheduler %s, rules off 0x%x", d->cfg.scheduler.policy,
		 d->cfg.scheduler.off);
}

static void reload_classes(struct daemon *d, const struct wb_config *next)
{
	struct wb_classes c;

	if (conf_classes_equal(&next->classes, &d->cfg.classes))
		return;
	d->cfg.classes = next->classes;
	conf_classes_to_lib(&d->cfg.classes, &c);
	for (int i = 0; i < d->n_bonds; i++)
		wb_bond_set_classes(d->bonds[i].bond, &c);
	log_line(LOG_LVL_NOTICE, d->cfg.name, NULL, "reload: traffic classes %s", c.rules.enabled ? "on" : "off");
}

static bool same_psk(const struct wb_conf_peer *next, const struct bond_ctx *bc)
{
	uint8_t digest[WB_HASH_LEN];
	bool same = !wb_hash2(digest, next->preshared_key, WB_KEY_LEN, NULL, 0) &&
		    wb_equal(digest, bc->psk_digest, WB_HASH_LEN);

	wb_wipe(digest, sizeof(digest));
	return same;
}

/* next: the peer in the file being reloaded; b and bc: the running one (whose key is gone: see psk_digest). */
static bool same_peer(const struct wb_conf_peer *next, const struct wb_conf_peer *b, const struct bond_ctx *bc)
{
	return !strcmp(next->name, b->name) && !memcmp(next->public_key, b->public_key, WB_KEY_LEN) &&
	       same_psk(next, bc) && !memcmp(&next->tun, &b->tun, sizeof(next->tun)) && next->n_routes == b->n_routes &&
	       !memcmp(next->routes, b->routes, (size_t)next->n_routes * sizeof(next->routes[0]));
}

/* What a reload cannot apply: said, one line each. Returns how many. */
static int reload_needs_restart(struct daemon *d, const struct wb_config *next)
{
	uint8_t pub[WB_KEY_LEN];
	const char *what[8];
	int n = 0;

	if (wb_x25519_public(pub, next->private_key) || memcmp(pub, d->own_public_key, WB_KEY_LEN))
		what[n++] = "the private key";
	if (next->cipher != d->cfg.cipher)
		what[n++] = "the cipher";
	if (memcmp(&next->server, &d->cfg.server, sizeof(next->server)) ||
	    memcmp(&next->listen, &d->cfg.listen, sizeof(next->listen)))
		what[n++] = d->cfg.role == WB_ROLE_CLIENT ? "the server" : "the listen address";
	if (memcmp(&next->timers, &d->cfg.timers, sizeof(next->timers)))
		what[n++] = "the timers";
	if (memcmp(&next->transport, &d->cfg.transport, sizeof(next->transport)))
		what[n++] = "the transport";
	if (memcmp(&next->control, &d->cfg.control, sizeof(next->control)))
		what[n++] = "the control socket";
	if (next->n_peers != d->cfg.n_peers)
		what[n++] = "the peers";
	for (int i = 0; i < next->n_peers && i < d->cfg.n_peers && n < 8; i++)
		if (!same_peer(&next->peers[i], &d->cfg.peers[i], &d->bonds[i])) {
			what[n++] = d->cfg.role == WB_ROLE_CLIENT ? "the server's key or the tunnel" : "a peer";
			break;
		}
	for (int i = 0; i < n; i++)
		log_line(LOG_LVL_WARNING, d->cfg.name, NULL, "reload: %s changed: that takes a restart", what[i]);
	return n;
}

/*
 * A reload that applied nothing: the running configuration stays, and the
 * service manager is told why, in this STATUS= and every one after it until a
 * reload succeeds (send_status).
 */
static void reload_failed(struct daemon *d, const char *why, char *status, size_t len)
{
	snprintf(d->reload_error, sizeof(d->reload_error), "%s", why);
	snprintf(status, len, "reload failed: %s; the running configuration stays", d->reload_error);
}

void daemon_reload(struct daemon *d)
{
	static struct wb_config next; /* large */
	char err[512], status[640];
	int pending = 0;

	notify_reloading(loop_now() / 1000);
	if (wb_config_load(&next, d->cfg.path, err, sizeof(err))) {
		log_line(LOG_LVL_ERR, d->cfg.name, NULL, "reload: %s; the running configuration stays", err);
		reload_failed(d, err, status, sizeof(status));
	} else if (next.role != d->cfg.role || strcmp(next.name, d->cfg.name)) {
		snprintf(err, sizeof(err), "%s: a new role or name takes a restart", d->cfg.path);
		log_line(LOG_LVL_ERR, d->cfg.name, NULL, "reload: %s", err);
		reload_failed(d, err, status, sizeof(status));
	} else {
		for (int i = 0; i < next.n_warnings; i++)
			log_line(LOG_LVL_WARNING, d->cfg.name, NULL, "reload: %s", next.warnings[i]);
		pending = reload_needs_restart(d, &next);
		reload_scheduler(d, &next);
		reload_classes(d, &next);
		if (d->cfg.role == WB_ROLE_CLIENT)
			pending += uplinks_reload(&d->uplinks, &next);
		log_line(pending ? LOG_LVL_WARNING : LOG_LVL_NOTICE, d->cfg.name, NULL, "reloaded %s%s", d->cfg.path,
			 pending ? "; some changes are not applied (see above)" : "");
		d->reload_error[0] = 0;
		if (pending)
			snprintf(status, sizeof(status), "reloaded %s; %d change%s not applied (see the log)", d->cfg.path,
				 pending, pending == 1 ? "" : "s");
		else
			snprintf(status, sizeof(status), "reloaded %s", d->cfg.path);
	}
	wb_wipe(&next, sizeof(next));
	/* READY=1 ends the reload either way: systemd leaves "reloading" only on it. */
	notify_ready(status);
}

int daemon_run(struct daemon *d)
{
	int rc;

	notify_ready("started");
	rc = loop_run(&d->loop, prepare);

	if (rc)
		log_line(LOG_LVL_ERR, NULL, NULL, "event loop: %s", strerror(-rc));
	return rc;
}

static void stop_bond(struct daemon *d, struct bond_ctx *bc)
{
	for (int i = 0; i < bc->routes_added; i++)
		wb_rtnl_route_del(d->rtnl, bc->tun_ifindex, &bc->conf->routes[i], 0, 0);
	if (bc->tun.fd >= 0) {
		loop_del(&d->loop, &bc->tun);
		close(bc->tun.fd); /* the device goes with its last descriptor */
	}
}

void daemon_stop(struct daemon *d)
{
	uint64_t now = loop_now();

	notify_stopping();
	ctl_stop(d);
	for (int i = 0; i < d->n_bonds; i++)
		if (d->bonds[i].bond)
			wb_bond_close(d->bonds[i].bond, now);
	flush_sockets(d);
	if (d->gro)
		write_gathered(d);
	for (int i = d->n_bonds - 1; i >= 0; i--)
		stop_bond(d, &d->bonds[i]);
	uplinks_stop(&d->uplinks);
	udp_free(&d->server.udp);
	free(d->tun_buf);
	free(d->gro);
	wb_device_free(d->dev);
	if (d->rtnl)
		wb_rtnl_close(d->rtnl);
	loop_close(&d->loop);
}
