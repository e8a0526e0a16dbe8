// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "pktio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Large enough for a burst of a fast sender while the emulator sleeps. */
#define PKTIO_SOCKET_BUFFER (8 * 1024 * 1024)

static void size_buffers(int fd)
{
	int size = PKTIO_SOCKET_BUFFER;

	/* FORCE needs CAP_NET_ADMIN; without it the sysctl maximum applies. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

static int read_mtu(int fd, const char *ifname, uint32_t *mtu)
{
	struct ifreq ifr = { 0 };

	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFMTU, &ifr))
		return -errno;
	*mtu = (uint32_t)ifr.ifr_mtu;
	return 0;
}

static int bind_to(struct pktio *io)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = io->ifindex,
	};
	struct packet_mreq promisc = { .mr_ifindex = io->ifindex, .mr_type = PACKET_MR_PROMISC };
	int one = 1;

	if (bind(io->fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -errno;
	/* Frames for other hosts are the whole point; veth would pass them anyway. */
	if (setsockopt(io->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &promisc, sizeof(promisc)))
		return -errno;
	/* Our own sends must not come back as input (pktio_recv also checks). */
	setsockopt(io->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	/* No qdisc on the way out: the emulator is the queue. */
	setsockopt(io->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	return 0;
}

int pktio_open(struct pktio *io, const char *ifname)
{
	int rc;

	*io = (struct pktio){ .fd = -1, .name = ifname };
	io->ifindex = (int)if_nametoindex(ifname);
	if (!io->ifindex)
		return -ENODEV;
	io->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (io->fd < 0)
		return -errno;
	size_buffers(io->fd);
	rc = read_mtu(io->fd, ifname, &io->mtu);
	if (!rc)
		rc = bind_to(io);
	if (rc) {
		pktio_close(io);
		return rc;
	}
	return 0;
}

void pktio_close(struct pktio *io)
{
	if (io->fd >= 0)
		close(io->fd);
	io->fd = -1;
}

int pktio_recv(struct pktio *io, struct frame *frames[], int n, uint32_t room)
{
	struct mmsghdr msgs[PKTIO_BATCH];
	struct iovec iov[PKTIO_BATCH];
	struct sockaddr_ll from[PKTIO_BATCH];
	int got, kept = 0;

	if (n > PKTIO_BATCH)
		n = PKTIO_BATCH;
	for (int i = 0; i < n; i++) {
		iov[i] = (struct iovec){ frames[i]->data, room };
		msgs[i] = (struct mmsghdr){ .msg_hdr = {
			.msg_name = &from[i], .msg_namelen = sizeof(from[i]),
			.msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	got = recvmmsg(io->fd, msgs, (unsigned)n, MSG_DONTWAIT, NULL);
	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	/* Compact in place: drop our own output and truncated frames. */
	for (int i = 0; i < got; i++) {
		struct frame *f = frames[i];

		if (from[i].sll_pkttype == PACKET_OUTGOING)
			continue;
		if ((msgs[i].msg_hdr.msg_flags & MSG_TRUNC) || msgs[i].msg_len < PKTIO_L2_HEADER) {
			io->rx_truncated++;
			continue;
		}
		f->len = msgs[i].msg_len;
		frames[i] = frames[kept];
		frames[kept++] = f;
	}
	return kept;
}

void pktio_send(struct pktio *io, struct frame *const frames[], int n)
{
	struct mmsghdr msgs[PKTIO_BATCH];
	struct iovec iov[PKTIO_BATCH];
	int done = 0;

	if (n > PKTIO_BATCH)
		n = PKTIO_BATCH;
	for (int i = 0; i < n; i++) {
		iov[i] = (struct iovec){ frames[i]->data, frames[i]->len };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	while (done < n) {
		int rc = sendmmsg(io->fd, msgs + done, (unsigned)(n - done), MSG_DONTWAIT);

		if (rc > 0) {
			done += rc;
		} else {
			/* Dropped, as a full transmit queue would; the next frame may pass. */
			io->tx_errors++;
			done++;
		}
	}
}
