// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the traffic classifier (classify.h). The input is an
 * IP packet as the TUN device gives it, and its bytes up to the first NUL
 * are a text of the configuration; the bytes after that NUL are a second
 * packet, so that a port rule the text makes can meet a packet it matches.
 *
 *   1. the text goes to wb_dscp_parse (a value 0..63 that wb_dscp_name
 *      names and reads back as itself), wb_port_rule_parse (0 with 1 <= lo
 *      <= hi and a protocol of UDP, TCP or both; or -EINVAL, the rule
 *      untouched) and wb_class_parse (a class whose name is the text);
 *   2. each packet, a heap copy of exactly its length (a read past its end
 *      is an ASan report), goes to wb_ip_info, wb_ip_dscp and wb_classify
 *      under the default rules, two fixed port rules and the text's rule if
 *      it is one. The harness reads the fixed header itself: the packet is
 *      read exactly when it is a whole IPv4 header (IHL 5..15 within the
 *      packet) or IPv6 header, with that DSCP; an IPv4 packet's ports are
 *      those behind its header unless it is a later fragment, not TCP or
 *      UDP, or cut short; an IPv6 packet's ports need TCP or UDP. The class
 *      is the harness's own reading of the rules, and bulk when they are
 *      disabled.
 */
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "classify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fixed_rules[] = { "udp:3478-3481", "tcp:27015-27030" };

static void check_dscp_text(const char *text)
{
	int d = wb_dscp_parse(text);
	char name[8];

	assert(d >= -1 && d < 64);
	if (d >= 0)
		assert(wb_dscp_parse(wb_dscp_name((uint8_t)d, name, sizeof(name))) == d);
}

/* Returns whether the text is a port rule, into *rule. */
static bool check_rule_text(const char *text, struct wb_port_rule *rule)
{
	static const struct wb_port_rule untouched = { 99, 99, 99 };
	int rc;

	*rule = untouched;
	rc = wb_port_rule_parse(text, rule);
	if (rc) {
		assert(rc == -EINVAL);
		assert(!memcmp(rule, &untouched, sizeof(*rule)));
		return false;
	}
	assert(rule->proto == 0 || rule->proto == IPPROTO_UDP || rule->proto == IPPROTO_TCP);
	assert(rule->lo >= 1 && rule->lo <= rule->hi);
	return true;
}

static void check_class_text(const char *text)
{
	int c = wb_class_parse(text);

	assert(c >= -1 && c < WB_CLASS_COUNT);
	if (c >= 0)
		assert(!strcmp(wb_class_name((enum wb_class)c), text));
}

/* The harness's own reading of the fixed header: whether it is whole, and its DSCP. */
static bool ref_header(const uint8_t *p, size_t n, uint8_t *dscp)
{
	unsigned ihl = n ? p[0] & 15 : 0;

	if (n >= 20 && p[0] >> 4 == 4 && ihl >= 5 && ihl * 4 <= n) {
		*dscp = p[1] >> 2;
		return true;
	}
	if (n >= 40 && p[0] >> 4 == 6) {
		*dscp = (uint8_t)(((p[0] << 4 | p[1] >> 4) & 0xff) >> 2);
		return true;
	}
	return false;
}

static bool tcp_or_udp(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP;
}

/* What wb_ip_info read of a whole header: what the harness can tell of it without walking IPv6's extensions. */
static void check_info(const uint8_t *p, size_t n, const struct wb_ip_info *info)
{
	size_t hlen = (size_t)(p[0] & 15) * 4;

	assert(!info->has_ports || tcp_or_udp(info->proto));
	if (!info->has_ports)
		assert(!info->sport && !info->dport);
	if (p[0] >> 4 == 4) {
		bool first = !(wb_get_be16(p + 6) & 0x1fff);

		assert(info->proto == p[9]);
		assert(info->has_ports == (first && tcp_or_udp(p[9]) && hlen + 4 <= n));
		if (info->has_ports)
			assert(info->sport == wb_get_be16(p + hlen) && info->dport == wb_get_be16(p + hlen + 2));
	} else if (tcp_or_udp(p[6])) {
		assert(info->proto == p[6] && info->has_ports == (n >= 44));
	}
}

/* The harness's own reading of the rules. */
static enum wb_class expect(const struct wb_class_rules *r, bool ok, const struct wb_ip_info *info)
{
	if (!r->enabled || !ok)
		return WB_CLASS_BULK;
	if (r->dscp & UINT64_C(1) << info->dscp)
		return WB_CLASS_INTERACTIVE;
	for (unsigned i = 0; i < r->n_ports && info->has_ports; i++) {
		const struct wb_port_rule *k = &r->ports[i];
		bool proto = !k->proto || k->proto == info->proto;

		if (proto && ((info->sport >= k->lo && info->sport <= k->hi) ||
			      (info->dport >= k->lo && info->dport <= k->hi)))
			return WB_CLASS_INTERACTIVE;
	}
	return WB_CLASS_BULK;
}

static void check_packet(struct wb_class_rules *r, const uint8_t *data, size_t n)
{
	uint8_t *p = malloc(n ? n : 1), dscp = 0;
	struct wb_ip_info info;
	enum wb_class c;
	bool ok;

	assert(p);
	memcpy(p, data, n);
	ok = wb_ip_info(p, n, &info);
	assert(ok == ref_header(p, n, &dscp));
	assert(info.dscp < 64 && info.dscp == (ok ? dscp : 0));
	assert(wb_ip_dscp(p, n) == info.dscp);
	if (ok)
		check_info(p, n, &info);
	else
		assert(!info.proto && !info.has_ports && !info.sport && !info.dport);
	c = wb_classify(r, p, n);
	assert(c == WB_CLASS_BULK || c == WB_CLASS_INTERACTIVE);
	assert(c == expect(r, ok, &info));
	r->enabled = false;
	assert(wb_classify(r, p, n) == WB_CLASS_BULK);
	r->enabled = true;
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t text_len = nul ? (size_t)(nul - data) : size;
	char *text = malloc(text_len + 1);
	struct wb_class_rules r;

	assert(text);
	memcpy(text, data, text_len);
	text[text_len] = '\0';
	wb_class_rules_default(&r);
	for (size_t i = 0; i < sizeof(fixed_rules) / sizeof(fixed_rules[0]); i++)
		assert(wb_port_rule_parse(fixed_rules[i], &r.ports[r.n_ports++]) == 0);
	check_dscp_text(text);
	check_class_text(text);
	if (check_rule_text(text, &r.ports[r.n_ports]))
		r.n_ports++;
	free(text);

	check_packet(&r, data, size);
	if (nul)
		check_packet(&r, nul + 1, size - text_len - 1);
	return 0;
}
