// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the configuration file parser. The input is a config
 * text; what is accepted must hold every promise config.h makes, and what is
 * rejected must say so in a "NAME:..." message. A private_key_file naming a
 * path is opened for reading only, and only a regular file is read. The
 * same bytes go to the validators that the control socket's add-uplink
 * hands any text to (validate.h).
 */
#include <arpa/inet.h>
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "validate.h"

#define NAME "fuzz.conf"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/*
 * libconfig before 1.7.3 leaks a string token that a syntax error discards
 * (hyperrealm/libconfig issue 142, fixed by pull request 155); Debian 12 has
 * 1.5. Only that is hidden: the scanner allocates strings (strbuf_append, and
 * calloc in libconfig_yylex for ""), while the settings of a config_t we
 * forgot to destroy come from elsewhere and would still show.
 */
const char *__lsan_default_suppressions(void)
{
	return "leak:strbuf_append\nleak:libconfig_yylex\n";
}

static void check_name(const char *name)
{
	size_t len = strnlen(name, WB_NAME_MAX);

	assert(len > 0 && len < WB_NAME_MAX);
	assert(strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == len);
}

static bool all_zero(const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

static void check_prefixes(const struct wb_prefix *p, int n, int max, int min)
{
	assert(n >= min && n <= max);
	for (int i = 0; i < n; i++) {
		assert(p[i].family == AF_INET || p[i].family == AF_INET6);
		assert(p[i].len <= (p[i].family == AF_INET ? 32 : 128));
	}
}

static void check_sockaddr(const struct sockaddr_storage *ss, bool need_port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

	assert(ss->ss_family == AF_INET || ss->ss_family == AF_INET6);
	if (need_port)
		assert(ss->ss_family == AF_INET ? sin->sin_port : sin6->sin6_port);
}

static void check_peer(const struct wb_config *cfg, int i)
{
	const struct wb_conf_peer *p = &cfg->peers[i];
	size_t tunlen = strnlen(p->tun.name, IFNAMSIZ);

	check_name(p->name);
	assert(tunlen > 0 && tunlen < IFNAMSIZ);
	assert(!all_zero(p->public_key, WB_KEY_LEN));
	assert(p->has_preshared_key == !all_zero(p->preshared_key, WB_KEY_LEN));
	check_prefixes(p->tun.address, p->tun.n_address, WB_MAX_ADDRESSES, 1);
	check_prefixes(p->routes, p->n_routes, WB_MAX_ROUTES, 0);
	assert(p->tun.mtu == 0 || (p->tun.mtu >= 576 && p->tun.mtu <= 65535));
	assert(p->line > 0);
	for (int j = 0; j < i; j++) {
		assert(strcmp(p->name, cfg->peers[j].name));
		assert(strcmp(p->tun.name, cfg->peers[j].tun.name));
		assert(memcmp(p->public_key, cfg->peers[j].public_key, WB_KEY_LEN));
	}
}

static void check_uplink(const struct wb_config *cfg, int i)
{
	const struct wb_conf_uplink *u = &cfg->uplinks[i];

	check_name(u->name);
	assert(strnlen(u->interface, IFNAMSIZ) < IFNAMSIZ);
	assert(u->interface[0] || u->has_fwmark || u->source.ss_family != AF_UNSPEC);
	if (u->source.ss_family != AF_UNSPEC)
		check_sockaddr(&u->source, false);
	assert(u->has_fwmark == (u->fwmark != 0));
	assert(u->weight >= 1 && u->weight <= 1000);
	for (int j = 0; j < i; j++)
		assert(strcmp(u->name, cfg->uplinks[j].name));
}

static void check_config(const struct wb_config *cfg)
{
	const struct wb_conf_timers *t = &cfg->timers;

	assert(!strcmp(cfg->path, NAME));
	check_name(cfg->name);
	assert(cfg->cipher == WB_CIPHER_CHACHA20_POLY1305 || cfg->cipher == WB_CIPHER_AES_256_GCM);
	assert(!all_zero(cfg->private_key, WB_KEY_LEN));
	assert(t->probe_interval_ms >= 10 && t->probe_interval_ms <= 10000);
	assert(t->uplink_timeout_ms >= 2 * t->probe_interval_ms && t->uplink_timeout_ms <= 60000);
	assert(t->handshake_retry_ms >= 100 && t->handshake_retry_ms <= 60000);
	assert(t->rekey_after_seconds >= 10 && t->rekey_after_seconds <= 86400);
	assert(t->rekey_after_messages >= 1000 && t->rekey_after_messages <= 1ULL << 60);
	assert(cfg->n_peers >= 1 && cfg->n_peers <= WB_MAX_PEERS);
	if (cfg->role == WB_ROLE_CLIENT) {
		assert(cfg->n_peers == 1 && !strcmp(cfg->peers[0].name, cfg->name));
		assert(cfg->n_uplinks >= 1 && cfg->n_uplinks <= WB_MAX_UPLINKS);
		check_sockaddr(&cfg->server, true);
		assert(cfg->listen.ss_family == AF_UNSPEC);
	} else {
		assert(cfg->role == WB_ROLE_SERVER && cfg->n_uplinks == 0);
		check_sockaddr(&cfg->listen, true);
		assert(cfg->server.ss_family == AF_UNSPEC);
	}
	for (int i = 0; i < cfg->n_peers; i++)
		check_peer(cfg, i);
	for (int i = 0; i < cfg->n_uplinks; i++)
		check_uplink(cfg, i);
}

/* What a validator takes keeps its promise; what it refuses, it says why. */
static void check_validators(const char *text)
{
	struct sockaddr_storage ss;
	char why[WB_WHY_MAX] = "";

	if (!wb_validate_name(text, why, sizeof(why)))
		check_name(text);
	else
		assert(why[0]);
	if (!wb_validate_ifname(text, NULL, 0))
		assert(strlen(text) < IFNAMSIZ && !strpbrk(text, "/: \t\n"));
	if (!wb_validate_source(&ss, text, NULL, 0))
		check_sockaddr(&ss, false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wb_config cfg; /* 40 kB: not on the stack */
	struct wb_prefix prefix;
	char err[256];
	char *text = malloc(size + 1);
	int ret;

	assert(text);
	memcpy(text, data, size);
	text[size] = '\0';
	/* The prefix parser on its own, with the same bytes. */
	if (!wb_prefix_parse(&prefix, text))
		check_prefixes(&prefix, 1, 1, 1);
	check_validators(text);
	ret = wb_config_parse(&cfg, text, NAME, err, sizeof(err));
	if (ret) {
		assert(ret < 0);
		assert(!strncmp(err, NAME ":", strlen(NAME ":")));
		assert(strlen(err) > strlen(NAME ": "));
	} else {
		check_config(&cfg);
	}
	free(text);
	return 0;
}
