// SPDX-License-Identifier: MIT
/*
 * wbinject: captures wanbond datagrams on one side of an emulated uplink and
 * sends them again, damaged, or as garbage, so a namespace test can check
 * what the daemon does with replayed, forged and malformed datagrams.
 * It runs inside an emulator namespace (emK: `a` towards the router, `b`
 * towards the vps), where linkem forwards with AF_PACKET and ignores the
 * frames others send on the same host (they are outgoing to it).
 *
 *   wbinject IFACE capture N PORT FILE [SECONDS]
 *       saves the next N Ethernet frames arriving on IFACE (not sent by this
 *       host) that carry IPv4 UDP to destination port PORT, in FILE (pcap);
 *       gives up after SECONDS (default 10)
 *   wbinject IFACE replay FILE [flip|forge]
 *       sends every frame of FILE again on IFACE: as it was; or "flip", with
 *       the last byte of its UDP payload changed (part of the AEAD tag); or
 *       "forge", flipped and with its data counter moved 2^32 ahead, so that
 *       it is new to the replay window and must fail authentication
 *   wbinject IFACE garbage N FILE [SEED]
 *       sends N datagrams with the Ethernet, IPv4 and UDP headers of the
 *       first frame of FILE and random payloads of 1..200 bytes (every other
 *       one shaped as a data message: type 4 and at least 32 bytes, so its
 *       random receiver index is looked up); none has a handshake message's
 *       type and length. IP length and checksum fixed, UDP checksum 0.
 *
 * Each prints what it did, with the wanbond message kinds it saw or sent.
 * Exit 0 on success; 1 on a system error or a capture that timed out;
 * 2 with a usage line for bad arguments (an interface that does not exist
 * in this namespace among them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

#define EXIT_USAGE 2
#define MAX_FRAME 65536
#define MAX_FRAMES 10000
#define ETH_HLEN_ 14
#define UDP_HLEN 8
#define GARBAGE_MAX 200
#define DATA_MIN ((int)WB_DATA_OVERHEAD) /* the shortest data message */

static const char usage_text[] =
	"usage: wbinject IFACE capture N PORT FILE [SECONDS]\n"
	"       wbinject IFACE replay FILE [flip|forge]\n"
	"       wbinject IFACE garbage N FILE [SEED]\n";

static int usage(const char *why, const char *arg)
{
	if (why)
		fprintf(stderr, "wbinject: %s%s%s\n", why, arg ? ": " : "", arg ? arg : "");
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}

static int parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* ---- frames ------------------------------------------------------------------ */

struct frame {
	size_t len;
	uint8_t *data;
	struct timespec when; /* when it was captured (wall clock) */
};

/* Offsets of an IPv4 UDP frame's parts; 0 if the frame is not one (or is a fragment). */
struct udp_view {
	size_t ip, udp, payload, payload_len;
	uint16_t dport;
};

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int udp_view(const uint8_t *f, size_t len, struct udp_view *v)
{
	size_t ihl, tot, ulen;

	if (len < ETH_HLEN_ + 20 + UDP_HLEN || get_be16(f + 12) != ETH_P_IP)
		return -1;
	if ((f[ETH_HLEN_] >> 4) != 4 || f[ETH_HLEN_ + 9] != IPPROTO_UDP)
		return -1;
	ihl = (size_t)(f[ETH_HLEN_] & 0x0f) * 4;
	tot = get_be16(f + ETH_HLEN_ + 2);
	if (ihl < 20 || tot < ihl + UDP_HLEN || ETH_HLEN_ + tot > len)
		return -1;
	if (get_be16(f + ETH_HLEN_ + 6) & 0x3fff) /* MF or a fragment offset */
		return -1;
	ulen = get_be16(f + ETH_HLEN_ + ihl + 4);
	if (ulen < UDP_HLEN || ulen > tot - ihl)
		return -1;
	v->ip = ETH_HLEN_;
	v->udp = ETH_HLEN_ + ihl;
	v->payload = v->udp + UDP_HLEN;
	v->payload_len = ulen - UDP_HLEN;
	v->dport = get_be16(f + v->udp + 2);
	return 0;
}

static uint32_t sum16(const uint8_t *p, size_t len, uint32_t sum)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += get_be16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void fix_ip_checksum(uint8_t *f, const struct udp_view *v)
{
	put_be16(f + v->ip + 10, 0);
	put_be16(f + v->ip + 10, fold(sum16(f + v->ip, v->udp - v->ip, 0)));
}

/* The UDP checksum over the pseudo-header; 0 computes as 0xffff (0 means none). */
static void fix_udp_checksum(uint8_t *f, const struct udp_view *v)
{
	size_t ulen = v->payload_len + UDP_HLEN;
	uint32_t sum = sum16(f + v->ip + 12, 8, 0) + IPPROTO_UDP + (uint32_t)ulen;
	uint16_t c;

	put_be16(f + v->udp + 6, 0);
	c = fold(sum16(f + v->udp, ulen, sum));
	put_be16(f + v->udp + 6, c ? c : 0xffff);
}

/* What the device would make of a payload (lib/device.c's length checks). */
enum kind { KIND_DATA, KIND_HANDSHAKE, KIND_SHORT_OR_UNKNOWN };

static enum kind payload_kind(const uint8_t *p, size_t len)
{
	if (!len)
		return KIND_SHORT_OR_UNKNOWN;
	switch (p[0]) {
	case WB_MSG_INITIATION:
		return len == sizeof(struct wb_msg_initiation) ? KIND_HANDSHAKE : KIND_SHORT_OR_UNKNOWN;
	case WB_MSG_RESPONSE:
		return len == sizeof(struct wb_msg_response) ? KIND_HANDSHAKE : KIND_SHORT_OR_UNKNOWN;
	case WB_MSG_COOKIE:
		return len == sizeof(struct wb_msg_cookie) ? KIND_HANDSHAKE : KIND_SHORT_OR_UNKNOWN;
	case WB_MSG_DATA:
		return len >= (size_t)DATA_MIN ? KIND_DATA : KIND_SHORT_OR_UNKNOWN;
	}
	return KIND_SHORT_OR_UNKNOWN;
}

/* ---- pcap files ---------------------------------------------------------------- */

struct pcap_global {
	uint32_t magic;
	uint16_t major, minor;
	int32_t zone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_record {
	uint32_t sec, usec, caplen, len;
};

static int save(const char *path, const struct frame *frames, size_t n)
{
	struct pcap_global g = { 0xa1b2c3d4, 2, 4, 0, 0, MAX_FRAME, 1 /* Ethernet */ };
	FILE *f = fopen(path, "wb");

	if (!f) {
		fprintf(stderr, "wbinject: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fwrite(&g, sizeof(g), 1, f);
	for (size_t i = 0; i < n; i++) {
		struct pcap_record r = { (uint32_t)frames[i].when.tv_sec, (uint32_t)(frames[i].when.tv_nsec / 1000),
					 (uint32_t)frames[i].len, (uint32_t)frames[i].len };

		fwrite(&r, sizeof(r), 1, f);
		fwrite(frames[i].data, 1, frames[i].len, f);
	}
	if (fclose(f)) {
		fprintf(stderr, "wbinject: writing %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Reads a file written by save() (native byte order); returns the frame count or -1. */
static long load(const char *path, struct frame **out)
{
	struct pcap_global g;
	struct pcap_record r;
	struct frame *frames = NULL;
	size_t n = 0;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "wbinject: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fread(&g, sizeof(g), 1, f) != 1 || g.magic != 0xa1b2c3d4 || g.linktype != 1) {
		fprintf(stderr, "wbinject: %s: not a capture of this tool\n", path);
		goto fail;
	}
	while (fread(&r, sizeof(r), 1, f) == 1) {
		struct frame *more;

		if (r.caplen == 0 || r.caplen > MAX_FRAME || n == MAX_FRAMES) {
			fprintf(stderr, "wbinject: %s: bad record %zu\n", path, n + 1);
			goto fail;
		}
		more = realloc(frames, (n + 1) * sizeof(*frames));
		if (!more)
			goto fail;
		frames = more;
		frames[n].len = r.caplen;
		frames[n].data = malloc(r.caplen);
		if (!frames[n].data)
			goto fail;
		n++;
		if (fread(frames[n - 1].data, 1, r.caplen, f) != r.caplen) {
			fprintf(stderr, "wbinject: %s: truncated record %zu\n", path, n);
			goto fail;
		}
	}
	fclose(f);
	if (!n) {
		fprintf(stderr, "wbinject: %s: no frames\n", path);
		free(frames);
		return -1;
	}
	*out = frames;
	return (long)n;
fail:
	for (size_t i = 0; i < n; i++)
		free(frames[i].data);
	free(frames);
	fclose(f);
	return -1;
}

static void free_frames(struct frame *frames, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(frames[i].data);
	free(frames);
}

/* ---- the packet socket ----------------------------------------------------------- */

static int open_packet(const char *ifname, int *ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	/* Protocol 0 receives nothing until bound: no frames of other interfaces slip in. */
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		fprintf(stderr, "wbinject: packet socket: %s\n", strerror(errno));
		return -1;
	}
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "wbinject: interface %s: %s\n", ifname, strerror(errno));
		close(fd);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "wbinject: bind to %s: %s\n", ifname, strerror(errno));
		close(fd);
		return -1;
	}
	*ifindex = sll.sll_ifindex;
	return fd;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int send_frame(int fd, const char *ifname, const uint8_t *f, size_t len)
{
	ssize_t n = send(fd, f, len, 0);

	if (n == (ssize_t)len)
		return 0;
	fprintf(stderr, "wbinject: sending on %s: %s\n", ifname, n < 0 ? strerror(errno) : "short write");
	return -1;
}

/* ---- commands ----------------------------------------------------------------------- */

static int cmd_capture(const char *ifname, char **argv, int argc)
{
	unsigned long n, port, seconds = 10;
	struct frame *frames;
	static uint8_t buf[MAX_FRAME];
	size_t got = 0, kinds[3] = { 0 };
	int64_t deadline;
	int fd, ifindex, rc = 1;

	if (argc < 3 || argc > 4)
		return usage("capture takes N PORT FILE [SECONDS]", NULL);
	if (parse_ulong(argv[0], 1, MAX_FRAMES, &n))
		return usage("N must be 1..10000", argv[0]);
	if (parse_ulong(argv[1], 1, 65535, &port))
		return usage("PORT must be 1..65535", argv[1]);
	if (argc == 4 && parse_ulong(argv[3], 1, 3600, &seconds))
		return usage("SECONDS must be 1..3600", argv[3]);
	fd = open_packet(ifname, &ifindex);
	if (fd < 0)
		return 1;
	frames = calloc(n, sizeof(*frames));
	if (!frames) {
		close(fd);
		return 1;
	}
	deadline = now_ms() + (int64_t)seconds * 1000;
	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fromlen = sizeof(from);
		struct udp_view v;
		int64_t left = deadline - now_ms();
		ssize_t len;

		if (left <= 0)
			break;
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "wbinject: poll: %s\n", strerror(errno));
			goto out;
		}
		if (!(p.revents & POLLIN))
			continue;
		len = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fromlen);
		if (len < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "wbinject: receive: %s\n", strerror(errno));
			goto out;
		}
		if (from.sll_pkttype == PACKET_OUTGOING || from.sll_ifindex != ifindex)
			continue;
		if (udp_view(buf, (size_t)len, &v) || v.dport != port)
			continue;
		frames[got].data = malloc((size_t)len);
		if (!frames[got].data)
			goto out;
		memcpy(frames[got].data, buf, (size_t)len);
		frames[got].len = (size_t)len;
		clock_gettime(CLOCK_REALTIME, &frames[got].when);
		kinds[payload_kind(buf + v.payload, v.payload_len)]++;
		got++;
	}
	printf("capture: %zu of %lu frames to UDP port %lu on %s: %zu data messages, %zu handshake messages, %zu other\n",
	       got, n, port, ifname, kinds[KIND_DATA], kinds[KIND_HANDSHAKE], kinds[KIND_SHORT_OR_UNKNOWN]);
	if (got && save(argv[2], frames, got))
		goto out;
	if (got < n)
		fprintf(stderr, "wbinject: capture timed out after %lu s with %zu of %lu frames\n", seconds, got, n);
	else
		rc = 0;
out:
	free_frames(frames, n);
	close(fd);
	return rc;
}

static int cmd_replay(const char *ifname, char **argv, int argc)
{
	enum { PLAIN, FLIP, FORGE } how = PLAIN;
	static const char *const names[] = { "replayed", "flipped", "forged" };
	struct frame *frames;
	size_t kinds[3] = { 0 }, sent = 0;
	long n;
	int fd, ifindex, rc = 1;

	if (argc < 1 || argc > 2)
		return usage("replay takes FILE [flip|forge]", NULL);
	if (argc == 2) {
		if (!strcmp(argv[1], "flip"))
			how = FLIP;
		else if (!strcmp(argv[1], "forge"))
			how = FORGE;
		else
			return usage("unknown replay mode", argv[1]);
	}
	n = load(argv[0], &frames);
	if (n < 0)
		return 1;
	fd = open_packet(ifname, &ifindex);
	if (fd < 0) {
		free_frames(frames, (size_t)n);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		uint8_t *f = frames[i].data;
		struct udp_view v;

		if (udp_view(f, frames[i].len, &v) || !v.payload_len) {
			fprintf(stderr, "wbinject: frame %ld is no UDP datagram with a payload\n", i + 1);
			goto out;
		}
		if (how != PLAIN) {
			f[v.payload + v.payload_len - 1] ^= 0x5a;
			if (how == FORGE && payload_kind(f + v.payload, v.payload_len) == KIND_DATA) {
				/* the little-endian counter's bytes 4..7 */
				uint8_t *counter = WB_MSG_FIELD(f + v.payload, wb_msg_data, counter) + 4;

				for (int b = 0; b < 4 && !++counter[b]; b++) /* += 2^32 */
					;
			}
			fix_udp_checksum(f, &v);
		}
		kinds[payload_kind(f + v.payload, v.payload_len)]++;
		if (send_frame(fd, ifname, f, frames[i].len))
			goto out;
		sent++;
	}
	rc = 0;
out:
	printf("replay: %zu frames %s on %s: %zu data messages, %zu handshake messages, %zu other\n", sent,
	       names[how], ifname, kinds[KIND_DATA], kinds[KIND_HANDSHAKE], kinds[KIND_SHORT_OR_UNKNOWN]);
	free_frames(frames, (size_t)n);
	close(fd);
	return rc;
}

/* xorshift64*: reproducible garbage from a seed. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static int cmd_garbage(const char *ifname, char **argv, int argc)
{
	unsigned long n, seed_arg;
	uint64_t seed, state;
	struct frame *frames;
	static uint8_t out[ETH_HLEN_ + 60 + UDP_HLEN + GARBAGE_MAX];
	size_t kinds[3] = { 0 }, sent = 0;
	struct udp_view v;
	long nf;
	int fd, ifindex, rc = 1;

	if (argc < 2 || argc > 3)
		return usage("garbage takes N FILE [SEED]", NULL);
	if (parse_ulong(argv[0], 1, 1000000, &n))
		return usage("N must be 1..1000000", argv[0]);
	if (argc == 3) {
		if (parse_ulong(argv[2], 1, ULONG_MAX, &seed_arg))
			return usage("SEED must be a positive integer", argv[2]);
		seed = seed_arg;
	} else {
		seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
		if (!seed)
			seed = 1;
	}
	nf = load(argv[1], &frames);
	if (nf < 0)
		return 1;
	if (udp_view(frames[0].data, frames[0].len, &v)) {
		fprintf(stderr, "wbinject: the first frame of %s is no IPv4 UDP datagram\n", argv[1]);
		free_frames(frames, (size_t)nf);
		return 1;
	}
	memcpy(out, frames[0].data, v.payload); /* Ethernet, IPv4 (options and all) and UDP headers */
	free_frames(frames, (size_t)nf);
	fd = open_packet(ifname, &ifindex);
	if (fd < 0)
		return 1;
	state = seed;
	for (unsigned long i = 0; i < n; i++) {
		bool data_shaped = i % 2;
		size_t len;

		do {
			len = data_shaped ? DATA_MIN + next_random(&state) % (GARBAGE_MAX - DATA_MIN + 1)
					  : 1 + next_random(&state) % GARBAGE_MAX;
			for (size_t b = 0; b < len; b++)
				out[v.payload + b] = (uint8_t)next_random(&state);
			if (data_shaped)
				out[v.payload] = WB_MSG_DATA;
		} while (payload_kind(out + v.payload, len) == KIND_HANDSHAKE);
		v.payload_len = len;
		put_be16(out + v.ip + 2, (uint16_t)(v.payload - v.ip + len));
		put_be16(out + v.ip + 4, (uint16_t)next_random(&state)); /* IP id */
		fix_ip_checksum(out, &v);
		put_be16(out + v.udp + 4, (uint16_t)(UDP_HLEN + len));
		put_be16(out + v.udp + 6, 0); /* no UDP checksum */
		kinds[payload_kind(out + v.payload, len)]++;
		if (send_frame(fd, ifname, out, v.payload + len))
			goto out;
		sent++;
	}
	rc = 0;
out:
	printf("garbage: %zu datagrams sent on %s (seed %llu): %zu data messages (random index), %zu short or of unknown type\n",
	       sent, ifname, (unsigned long long)seed, kinds[KIND_DATA], kinds[KIND_SHORT_OR_UNKNOWN]);
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc < 3)
		return usage(NULL, NULL);
	if (!*argv[1] || strlen(argv[1]) >= IFNAMSIZ || !if_nametoindex(argv[1]))
		return usage("no such interface here", argv[1]);
	if (!strcmp(argv[2], "capture"))
		return cmd_capture(argv[1], argv + 3, argc - 3);
	if (!strcmp(argv[2], "replay"))
		return cmd_replay(argv[1], argv + 3, argc - 3);
	if (!strcmp(argv[2], "garbage"))
		return cmd_garbage(argv[1], argv + 3, argc - 3);
	return usage("unknown command", argv[2]);
}
