// SPDX-License-Identifier: MIT
#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

int tun_open(const char *name, char actual[IFNAMSIZ], bool *offload)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC), hdr = WB_VNET_HDR_LEN;

	if (fd < 0)
		return -errno;
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETVNETHDRSZ, &hdr)) {
		int err = -errno;

		close(fd);
		return err;
	}
	/* Checksums and TCP segments left to us; a kernel without them still sends whole packets. */
	*offload = !ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN);
	memcpy(actual, ifr.ifr_name, IFNAMSIZ);
	actual[IFNAMSIZ - 1] = 0;
	return fd;
}

void tun_write_gathered(int fd, struct wb_gro *g, struct io_count *io, uint64_t *errors, int *last_errno)
{
	for (int i = 0; i < g->n; i++) {
		uint8_t vnet[WB_VNET_HDR_LEN];
		struct iovec iov[WB_GRO_IOV];
		unsigned packets;
		int n = wb_gro_item_iov(g, i, vnet, iov, &packets);

		io->calls++;
		if (writev(fd, iov, n) >= 0) {
			io->packets += packets;
			continue;
		}
		/* As on a link that drops: the inner protocols recover. */
		*errors += packets;
		*last_errno = errno;
	}
	wb_gro_clear(g);
}
