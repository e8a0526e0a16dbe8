// SPDX-License-Identifier: MIT
/*
 * wanbondd: the bonding daemon.
 *
 *   wanbondd -c FILE [-v]...     run with a configuration file
 *   wanbondd --check -c FILE     read and validate it as a start would, start nothing
 *   wanbondd --genkey            print a new private key
 *   wanbondd --pubkey            read a private key on stdin, print its public key
 *
 * Exit codes: 0 after SIGTERM/SIGINT (or a file that checks), 1 on a
 * configuration or start-up error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "config.h"
#include "crypto.h"
#include "daemon.h"
#include "harden.h"
#include "log.h"

static const char usage[] =
	"usage: wanbondd -c FILE [-v]...\n"
	"       wanbondd --check -c FILE\n"
	"       wanbondd --genkey\n"
	"       wanbondd --pubkey < private.key\n"
	"  -c, --config FILE   the configuration (see docs/configuration.md)\n"
	"  -v, --verbose       more log lines (twice: debug)\n"
	"  -q, --quiet         only warnings and errors\n"
	"  -s, --syslog        log to syslog instead of standard error\n"
	"      --check         read and validate the configuration as a start would, start\n"
	"                      nothing: FILE:LINE: what is wrong and exit 1, or FILE: ok\n"
	"      --genkey        print a new random private key (base64)\n"
	"      --pubkey        print the public key of the private key read on stdin\n"
	"  -h, --help          this text\n";

static int genkey(void)
{
	uint8_t key[WB_KEY_LEN];
	char b64[WB_KEY_B64_LEN];

	if (getrandom(key, sizeof(key), 0) != sizeof(key)) {
		perror("wanbondd: getrandom");
		return 1;
	}
	wb_x25519_clamp(key);
	wb_key_to_base64(b64, key);
	puts(b64);
	wb_wipe(key, sizeof(key));
	wb_wipe(b64, sizeof(b64));
	return 0;
}

static int pubkey(void)
{
	uint8_t priv[WB_KEY_LEN], pub[WB_KEY_LEN];
	char line[128], b64[WB_KEY_B64_LEN];
	size_t n;
	int rc = 1;

	if (!fgets(line, sizeof(line), stdin)) {
		fputs("wanbondd: --pubkey: expected a private key on standard input\n", stderr);
		return 1;
	}
	n = strcspn(line, " \t\r\n");
	line[n] = 0;
	if (wb_key_from_base64(priv, line)) {
		fputs("wanbondd: --pubkey: standard input is not a base64 key of 32 bytes\n", stderr);
	} else {
		wb_x25519_clamp(priv);
		if (!wb_x25519_public(pub, priv)) {
			wb_key_to_base64(b64, pub);
			puts(b64);
			rc = 0;
		}
	}
	wb_wipe(priv, sizeof(priv));
	wb_wipe(line, sizeof(line));
	return rc;
}

struct options {
	const char *config;
	int verbosity;
	bool check;
	bool syslog;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "config", required_argument, NULL, 'c' }, { "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },        { "check", no_argument, NULL, 'C' },
		{ "syslog", no_argument, NULL, 's' },
		{ "genkey", no_argument, NULL, 'G' },       { "pubkey", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:vqsh", longs, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'v':
			o->verbosity++;
			break;
		case 'q':
			o->verbosity = -1;
			break;
		case 'C':
			o->check = true;
			break;
		case 's':
			o->syslog = true;
			break;
		case 'G':
			exit(genkey());
		case 'P':
			exit(pubkey());
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (!o->config || optind != argc) {
		fputs(o->config ? "wanbondd: unexpected arguments\n" : "wanbondd: missing -c FILE\n", stderr);
		fputs(usage, stderr);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct daemon d; /* large; one per process */
	struct options o = { 0 };
	char err[512];
	int rc;

	/*
	 * Before anything else: the options --genkey and --pubkey handle a key
	 * too, and a start reads them with the configuration (harden.h). A
	 * failure stops the daemon rather than run it with keys a crash could
	 * write to disk.
	 */
	if (harden_no_core_dumps(err, sizeof(err))) {
		fprintf(stderr, "wanbondd: cannot turn core dumps off: %s\n", err);
		return 1;
	}
	if (parse_options(argc, argv, &o))
		return 1;
	log_set_level(o.verbosity < 0 ? LOG_LVL_WARNING : LOG_LVL_INFO + o.verbosity);
	if (wb_config_load(&d.cfg, o.config, err, sizeof(err))) {
		/* A check prints the bare "FILE:LINE: what", as a compiler would, for an editor or a script. */
		fprintf(stderr, "%s%s\n", o.check ? "" : "wanbondd: ", err);
		return 1;
	}
	if (o.check) {
		for (int i = 0; i < d.cfg.n_warnings; i++)
			fprintf(stderr, "warning: %s\n", d.cfg.warnings[i]);
		printf("%s: ok\n", o.config);
		return 0;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	log_set_sink(o.syslog ? LOG_TO_SYSLOG : LOG_TO_STDERR);
	for (int i = 0; i < d.cfg.n_warnings; i++)
		log_line(LOG_LVL_WARNING, d.cfg.name, NULL, "%s", d.cfg.warnings[i]);
	rc = daemon_start(&d);
	if (!rc)
		rc = daemon_run(&d);
	daemon_stop(&d);
	wb_wipe(&d.cfg, sizeof(d.cfg));
	return rc ? 1 : 0;
}
