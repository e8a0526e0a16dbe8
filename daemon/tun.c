// SPDX-License-Identifier: MIT
#include "tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int tun_open(const char *name, char actual[IFNAMSIZ])
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		int err = -errno;

		close(fd);
		return err;
	}
	memcpy(actual, ifr.ifr_name, IFNAMSIZ);
	actual[IFNAMSIZ - 1] = 0;
	return fd;
}
