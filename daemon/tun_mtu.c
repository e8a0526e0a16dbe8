// SPDX-License-Identifier: MIT
/*
 * The TUN devices' MTU. Set by hand, it stays; automatic, it is the
 * smallest uplink interface's less what the tunnel adds over the outer
 * family, and then follows, once a second, what the uplinks' paths carry
 * and (on a server) whether a peer's uplinks are all IPv4.
 */
#include <string.h>
#include <sys/socket.h>

#include "daemon.h"
#include "nsec.h"

#define MTU_CHECK_INTERVAL_NS WB_NSEC_PER_SEC /* the uplinks' and the peers' changes are followed within a second */

/*
 * The inner MTU: the smallest uplink MTU less what the tunnel adds to each
 * packet over outer headers of a family (4 or 6).
 */
static uint32_t auto_mtu(struct daemon *d, int family)
{
	uint32_t smallest = UPLINK_MTU_DEFAULT;

	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++) {
		struct uplink_info u;
		uint32_t mtu;
		int ifindex;

		if (uplinks_info(&d->uplinks, i, &u) && u.interface[0] && !wb_rtnl_link_get(d->rtnl, u.interface, &ifindex, &mtu) &&
		    mtu < smallest)
			smallest = mtu;
	}
	return smallest - (family == 4 ? WB_TUNNEL_OVERHEAD_IPV4 : WB_TUNNEL_OVERHEAD);
}

/*
 * A bond's TUN MTU and the most it may become. A client's outer family is
 * its server's address's. A server's is each peer's: it starts with IPv6's
 * smaller MTU and takes IPv4's once every uplink of the peer comes over
 * IPv4 (fit_mtu), so the library and the buffer are sized for that.
 */
void daemon_choose_mtu(struct daemon *d, struct bond_ctx *bc)
{
	bc->mtu_auto = !bc->conf->tun.mtu;
	if (!bc->mtu_auto) {
		bc->mtu = bc->mtu_cap = bc->conf->tun.mtu;
		return;
	}
	bc->mtu_cap = auto_mtu(d, 4);
	if (d->cfg.role == WB_ROLE_CLIENT)
		bc->mtu = auto_mtu(d, d->cfg.server.ss_family == AF_INET ? 4 : 6);
	else
		bc->mtu = auto_mtu(d, 6);
}

/*
 * The outer family's MTU: a client's is its server's; a server's follows its
 * peer's uplinks, IPv4's when all of them are IPv4.
 */
static uint32_t family_mtu(struct daemon *d, const struct bond_ctx *bc, const char **why)
{
	bool v4 = false, v6 = false;

	if (d->cfg.role == WB_ROLE_CLIENT) {
		*why = "the uplinks' interfaces";
		return auto_mtu(d, d->cfg.server.ss_family == AF_INET ? 4 : 6);
	}
	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink_status u;

		if (wb_bond_uplink_status(bc->bond, i, &u) && u.available) {
			v4 |= u.endpoint.family == 4;
			v6 |= u.endpoint.family == 6;
		}
	}
	*why = v4 && !v6 ? "the peer's uplinks are all IPv4" : "the peer's uplinks are not all IPv4";
	return v4 && !v6 ? bc->mtu_cap : auto_mtu(d, 6);
}

/* IPv6 leaves a device under 1280 bytes: a TUN device with an IPv6 address stays at that at least. */
static uint32_t smallest_mtu(const struct bond_ctx *bc)
{
	for (int i = 0; i < bc->conf->tun.n_address; i++)
		if (bc->conf->tun.address[i].family == AF_INET6)
			return 1280;
	return 576;
}

/*
 * An automatic TUN MTU: the outer family's, and no more than what the path
 * of every usable uplink carries in one datagram (their path MTU searches),
 * so that an inner TCP sizes its segments for the smallest path.
 */
static void fit_mtu(struct daemon *d, struct bond_ctx *bc)
{
	const char *why;
	uint32_t want = family_mtu(d, bc, &why), path = wb_bond_path_max_packet(bc->bond);
	int rc;

	if (path && path < want) {
		want = path > smallest_mtu(bc) ? path : smallest_mtu(bc);
		why = "the smallest path of an uplink up";
	}
	if (want > bc->mtu_cap)
		want = bc->mtu_cap;
	if (want == bc->mtu || bc->tun_ifindex <= 0)
		return;
	rc = wb_rtnl_link_set(d->rtnl, bc->tun_ifindex, want, true);
	if (rc) {
		log_line(LOG_LVL_ERR, bc->conf->name, NULL, "setting the mtu of %s to %u: %s", bc->tun_name, want,
			 strerror(-rc));
		return;
	}
	log_line(LOG_LVL_NOTICE, bc->conf->name, NULL, "%s mtu %u: %s", bc->tun_name, want, why);
	bc->mtu = want;
}

void daemon_fit_mtus(struct daemon *d, uint64_t now)
{
	d->next_mtu_check_ns = now + MTU_CHECK_INTERVAL_NS;
	for (int i = 0; i < d->n_bonds; i++)
		if (d->bonds[i].bond && d->bonds[i].mtu_auto)
			fit_mtu(d, &d->bonds[i]);
}
