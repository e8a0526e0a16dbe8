# wanbond: multi-WAN bonding daemon, its tools and its tests.
#
#   make            build everything (warnings are errors; WERROR=0 to relax)
#   make deps       install the Debian packages the build and the tests need
#   make check      every test: unit (plain and ASan+UBSan), fuzz replays, namespaces
#   make check-cross  unit tests and simulator scenarios built for arm64, armhf, mipsel, s390x, run under qemu-user
#   make deps-luci  Chromium and python3-websocket, for the LuCI app's browser test (tests/netns/test_luci.sh)
#   make demo       the main job over emulated uplinks, figures printed
#   make bench      the long measurements (calibration, tunnel, scheduler, latency, soak; BENCH=word for some)
#   make fuzz       run each libFuzzer harness for FUZZ_SECONDS
#   make install    the daemon, the CLI, their man pages, the systemd units (DESTDIR and PREFIX honoured)
#   make deb        the Debian package (debian/), into BUILD/deb/

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=
BUILD ?= build
CC ?= gcc
# The pkg-config of the target (TRIPLET-pkg-config when cross-building: tests/cross.sh).
PKG_CONFIG ?= pkg-config
WERROR ?= 1
FUZZ_SECONDS ?= 60

WARNINGS := -Wall -Wextra -Wformat=2 -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
	-Wimplicit-fallthrough -Wpointer-arith -Wundef -Wvla
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARNINGS) -D_FORTIFY_SOURCE=2 -fstack-protector-strong -MMD -MP
ifeq ($(WERROR),1)
BASE_CFLAGS += -Werror
endif
ifeq ($(SAN),1)
CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS) $(CPPFLAGS)

# Quiet by default; V=1 shows the commands.
ifneq ($(V),1)
Q := @
quiet = @printf '  %-6s %s\n' $(1) $(2);
endif

# The protocol library (pure), the daemon's modules, the daemon and its CLI.
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard lib/*.c))
DAEMON_MAIN := daemon/main.c
DAEMON_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out $(DAEMON_MAIN),$(wildcard daemon/*.c)))
SYS_LIBS := -lcrypto -lconfig -lmnl
# SYSTEMD=1: daemon/notify.c calls sd_notify from libsystemd (the default when
# pkg-config finds it); SYSTEMD=0 (OpenWrt) sends the notifications itself.
ifeq ($(origin SYSTEMD),undefined)
SYSTEMD := $(shell $(PKG_CONFIG) --exists libsystemd 2>/dev/null && echo 1 || echo 0)
endif
# The default directory of the control sockets, the daemon's and the CLI's
# (OpenWrt's package builds with /var/run/wanbond: it has no /run).
CONTROL_DIR ?= /run/wanbond
BASE_CFLAGS += -DWB_CONTROL_DIR='"$(CONTROL_DIR)"'
ifeq ($(SYSTEMD),1)
BASE_CFLAGS += -DWB_HAVE_SYSTEMD=1
SYS_LIBS += $(shell $(PKG_CONFIG) --libs libsystemd)
else
BASE_CFLAGS += -DWB_HAVE_SYSTEMD=0
endif
# What the daemon and the CLI may include of the library: its interface
# (wanbond.h), the control family's codec (ctl.h), the settings' checks
# (validate.h) and the types and helpers those are made of. The rest of lib/
# is the library's own: the daemon's and the CLI's include path reaches only
# these, linked into BUILD/include.
LIB_PUBLIC_HEADERS := wanbond.h ctl.h allowed.h classify.h byteorder.h counters.h crypto.h endpoint.h escape.h nsec.h pktbuf.h validate.h wire.h tso.h gro.h vnet_hdr.h
PUBLIC_INCLUDE = $(BUILD)/include
PUBLIC_HEADER_LINKS = $(LIB_PUBLIC_HEADERS:%=$(PUBLIC_INCLUDE)/%)
# The include path of each part: what it may include, and nothing more.
# The library includes only itself (no daemon's, no CLI's, no linkem's
# header); the daemon and the CLI the library's public headers and their
# own; linkem its own. The tests, the simulator, the fuzz harnesses and the
# test tools look inside everything (white-box), and so does the fuzz build
# (all the sources in one clang command).
LIB_INCLUDES := -Ilib
DAEMON_INCLUDES = -I$(PUBLIC_INCLUDE) -Idaemon
CLI_INCLUDES = -I$(PUBLIC_INCLUDE) -Icli
LINKEM_INCLUDES := -Itools/linkem
LATPROBE_INCLUDES := -Itools/latprobe
TEST_INCLUDES := -Ilib -Idaemon -Itools/linkem -Itools/latprobe
INCLUDES :=

# The link emulator: pure model (unit tested, fuzzed, reused by the simulator) and its I/O.
LINKEM_PURE := units trace loss shaper linkdir args
LINKEM_IO := pool pktio linkem
LINKEM_PURE_OBJ := $(LINKEM_PURE:%=$(BUILD)/tools/linkem/%.o)
LINKEM_OBJ := $(LINKEM_PURE_OBJ) $(LINKEM_IO:%=$(BUILD)/tools/linkem/%.o)

# wb-latprobe, a voice or game stream and its one-way delay: pure parts (the
# command line, the packet, the statistics: unit tested, fuzzed) and its I/O.
# Its files are named lp_* so that the tests' include path, which reaches
# every tool, finds one args.h and one wire.h.
LATPROBE_PURE := lp_args lp_wire lp_stats
LATPROBE_PURE_OBJ := $(LATPROBE_PURE:%=$(BUILD)/tools/latprobe/%.o)
LATPROBE_OBJ := $(LATPROBE_PURE_OBJ) $(BUILD)/tools/latprobe/latprobe.o

UNIT_TESTS := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_TESTS:%=$(BUILD)/tests/unit/%)
FUZZERS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
REPLAY_BINS := $(FUZZERS:%=$(BUILD)/tests/fuzz/replay_%)
# The fuzz seeds' generator: built with the replays, so that it compiles, and
# run by check-unit, so that the committed seeds are what it writes.
GEN_CORPUS := $(BUILD)/tests/fuzz/gen_corpus
# The deterministic simulator (tests/sim/), and its scenarios.
SIM_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/sim/*.c))
SIM_BIN := $(BUILD)/tests/sim/wbsim
# Small programs the namespace tests drive (tests/tools/*.c).
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(wildcard tests/tools/*.c))
# notify_probe once more on notify.c's own sender (as SYSTEMD=0 builds it), so
# tests/netns/test_systemd.sh covers both sides of WB_HAVE_SYSTEMD on one machine.
TOOL_BINS += $(if $(wildcard tests/tools/notify_probe.c),$(BUILD)/tests/tools/notify_probe-nosd)

CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

.PHONY: all deps check check-unit check-sweep check-netns check-interop demo bench fuzz install install-linkem deb clean unit-bins replay-bins tool-bins
# What a system running wanbond needs: the daemon and its CLI.
PROGRAMS := $(if $(wildcard $(DAEMON_MAIN)),$(BUILD)/bin/wanbondd) $(BUILD)/bin/wanbond
all: $(BUILD)/bin/linkem $(BUILD)/bin/wb-latprobe $(PROGRAMS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(ALL_CFLAGS) $(INCLUDES) -c -o $@ $<

$(PUBLIC_INCLUDE)/%.h: lib/%.h
	@mkdir -p $(@D)
	$(Q)ln -sf $(CURDIR)/$< $@

# Each part with its own include path (LIB_INCLUDES and the others above):
# the daemon and the CLI reach the library through its public headers only.
$(BUILD)/lib/%.o: INCLUDES = $(LIB_INCLUDES)
$(BUILD)/daemon/%.o $(BUILD)/nosd/daemon/%.o: INCLUDES = $(DAEMON_INCLUDES)
$(BUILD)/cli/%.o: INCLUDES = $(CLI_INCLUDES)
$(BUILD)/tools/linkem/%.o: INCLUDES = $(LINKEM_INCLUDES)
$(BUILD)/tools/latprobe/%.o: INCLUDES = $(LATPROBE_INCLUDES)
$(BUILD)/tests/%.o $(BUILD)/nosd/tests/%.o: INCLUDES = $(TEST_INCLUDES)

# The scheduler's policies: their bond only through sched.h (bond.h refuses them).
$(BUILD)/lib/sched_%.o: ALL_CFLAGS += -DWB_SCHED_POLICY

$(BUILD)/libwanbond.a: $(LIB_OBJ)
	@rm -f $@
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(BUILD)/libwanbondd.a: $(DAEMON_OBJ)
	@rm -f $@
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(BUILD)/bin/wanbondd: $(BUILD)/daemon/main.o $(BUILD)/libwanbondd.a $(BUILD)/libwanbond.a
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) -lm

# The CLI: the control family's codec (lib/ctl.c) and the rule names come from libwanbond.
CLI_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard cli/*.c))
$(DAEMON_OBJ) $(BUILD)/daemon/main.o $(CLI_OBJ): | $(PUBLIC_HEADER_LINKS)
$(BUILD)/bin/wanbond: $(CLI_OBJ) $(BUILD)/libwanbond.a
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) -lm

$(BUILD)/bin/linkem: $(LINKEM_OBJ)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ -lm

$(BUILD)/liblinkem_model.a: $(LINKEM_PURE_OBJ)
	@rm -f $@
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(BUILD)/bin/wb-latprobe: $(LATPROBE_OBJ)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/liblatprobe.a: $(LATPROBE_PURE_OBJ)
	@rm -f $@
	$(call quiet,AR,$@)$(AR) rcs $@ $^

# Unit tests: one binary per module, each linked with cmocka and all the libraries,
# and with the test support code (tests/unit/*.c that are not test_*.c).
TEST_SUPPORT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(filter-out tests/unit/test_%,$(wildcard tests/unit/*.c)))
TEST_LIBS := $(BUILD)/libtestsupport.a $(BUILD)/libwanbondd.a $(BUILD)/libwanbond.a $(BUILD)/liblinkem_model.a \
	$(BUILD)/liblatprobe.a

$(BUILD)/libtestsupport.a: $(TEST_SUPPORT_OBJ)
	@rm -f $@
	$(call quiet,AR,$@)$(AR) rcs $@ $^

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(TEST_LIBS)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(SYS_LIBS) -lm

$(BUILD)/tests/unit/%.o: ALL_CFLAGS += -Wno-missing-prototypes -Itests/unit
# The inner TCP model's test links the model from the simulator.
$(BUILD)/tests/unit/test_tcp: $(BUILD)/tests/sim/tcp.o
# The CLI's argument parser is the CLI's own, not in a library.
$(BUILD)/tests/unit/test_cli_args: $(BUILD)/cli/cli_args.o
$(BUILD)/tests/unit/test_cli_args.o: ALL_CFLAGS += -Icli
# The Prometheus formatter, fed bonds as the CLI reads them (show.c; client.c beside it).
$(BUILD)/tests/unit/test_prometheus: $(BUILD)/cli/prometheus.o $(BUILD)/cli/show.o $(BUILD)/cli/client.o
$(BUILD)/tests/unit/test_prometheus.o: ALL_CFLAGS += -Icli

# Replays of the fuzz corpora: the harnesses built with gcc and a plain file-reading main.
$(BUILD)/tests/fuzz/replay_%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/replay_main.o $(TEST_LIBS)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) -lm

$(GEN_CORPUS): $(BUILD)/tests/fuzz/gen_corpus.o $(TEST_LIBS)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) -lm

$(BUILD)/tests/fuzz/%.o: ALL_CFLAGS += -Wno-missing-prototypes

$(SIM_BIN): $(SIM_OBJ) $(TEST_LIBS)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) -lm

$(BUILD)/tests/sim/%.o: ALL_CFLAGS += -Wno-missing-prototypes

$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(TEST_LIBS)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(SYS_LIBS) -lm

$(BUILD)/nosd/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$@)$(CC) $(filter-out -DWB_HAVE_SYSTEMD=%,$(ALL_CFLAGS)) -DWB_HAVE_SYSTEMD=0 $(INCLUDES) -c -o $@ $<

$(BUILD)/nosd/daemon/notify.o $(BUILD)/nosd/daemon/log.o: | $(PUBLIC_HEADER_LINKS)
$(BUILD)/tests/tools/notify_probe-nosd: $(patsubst %,$(BUILD)/nosd/%.o,tests/tools/notify_probe daemon/notify daemon/log) $(BUILD)/lib/escape.o
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(LDFLAGS) -o $@ $^

unit-bins: $(UNIT_BINS) $(SIM_BIN)
tool-bins: $(TOOL_BINS)
replay-bins: $(REPLAY_BINS) $(GEN_CORPUS)

deps:
	@tests/deps.sh

check: deps
	@tests/check.sh

# The pieces check.sh runs; each can be run on its own.
check-unit: $(UNIT_BINS) $(REPLAY_BINS) $(GEN_CORPUS) $(SIM_BIN) $(BUILD)/bin/linkem $(BUILD)/bin/wb-latprobe $(PROGRAMS)
	@tests/run-unit.sh $(BUILD)

# The simulator's sweep (tests/sim/sweep.sh): 50 seeded draws, held to the floors of where the project stands.
check-sweep: $(SIM_BIN) $(TOOL_BINS)
	@tests/sim/sweep.sh -b $(BUILD) -g

check-netns: all $(TOOL_BINS)
	@tests/netns/run.sh $(BUILD)

# A wanbondd from before the traffic classes (the commit before them), built
# from the project's history, beside this one both ways round
# (tests/netns/interop_older.sh). .ci/run runs it after make check.
INTEROP_OLDER = 983e0a91779816f27c888fc7e5276306c878f5b5
INTEROP_DIR = $(BUILD)/interop-$(INTEROP_OLDER)
check-interop: all
	@if [ ! -x $(INTEROP_DIR)/build/bin/wanbondd ]; then \
		git rev-parse -q --verify $(INTEROP_OLDER)^{commit} >/dev/null || \
			{ echo "check-interop needs the project's git history (commit $(INTEROP_OLDER))" >&2; exit 1; }; \
		rm -rf $(INTEROP_DIR) && mkdir -p $(INTEROP_DIR)/src && \
		git archive $(INTEROP_OLDER) | tar -x -C $(INTEROP_DIR)/src && \
		$(MAKE) -s -C $(INTEROP_DIR)/src BUILD=$(abspath $(INTEROP_DIR))/build all; \
	fi
	@tests/netns/interop_older.sh $(BUILD) $(INTEROP_DIR)/build

# ---- Other architectures (tests/cross.sh, docs/testing.md): the daemon, the
# CLI, the unit tests and wbsim cross-built for each of CROSS_ARCHES (arm64
# armhf mipsel s390x) into build/cross-ARCH, run under qemu-user. deps-cross
# installs the cross compilers, qemu-user-static and the multiarch libraries.
.PHONY: deps-cross check-cross
deps-cross:
	@tests/deps_cross.sh

check-cross: deps-cross
	@tests/cross.sh
# ---- end of other architectures

# The browser test of the LuCI app (tests/netns/test_luci.sh) needs Chromium
# and python3-websocket; it runs against OpenWrt's and LuCI's components
# given by OPENWRT_ROOT (docs/testing.md), and says it was skipped without.
.PHONY: deps-luci
deps-luci:
	@tests/deps_luci.sh

demo: deps all
	@tests/netns/demo.sh $(BUILD)

bench: deps all $(TOOL_BINS) $(SIM_BIN)
	@BENCH="$(BENCH)" SEED="$(SEED)" FIRST="$(FIRST)" N="$(N)" tests/bench/run.sh $(BUILD)

# libFuzzer needs clang; each harness runs FUZZ_SECONDS on a scratch copy of its corpus.
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined $(TEST_INCLUDES)
FUZZ_SOURCES = $(wildcard lib/*.c) $(filter-out $(DAEMON_MAIN),$(wildcard daemon/*.c)) $(patsubst %,tools/linkem/%.c,$(LINKEM_PURE)) \
	$(patsubst %,tools/latprobe/%.c,$(LATPROBE_PURE))
fuzz: deps
	@mkdir -p $(BUILD)/fuzz
	@set -e; for f in $(FUZZERS); do \
		clang $(FUZZ_CFLAGS) -o $(BUILD)/fuzz/$$f tests/fuzz/$$f.c $(FUZZ_SOURCES) $(SYS_LIBS) -lm; \
		rm -rf $(BUILD)/fuzz/$$f.corpus; mkdir -p $(BUILD)/fuzz/$$f.corpus; \
		cp tests/fuzz/corpus/$$f/* $(BUILD)/fuzz/$$f.corpus/ 2>/dev/null || true; \
		echo "fuzz: $$f for $(FUZZ_SECONDS)s"; \
		$(BUILD)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(BUILD)/fuzz/$$f- \
			$(BUILD)/fuzz/$$f.corpus tests/fuzz/corpus/$$f; \
	done

# The daemon, the CLI, their man pages and the systemd units. Not linkem:
# the link emulator is a test tool, of no use on a router or a VPS
# (make install-linkem, for a machine that emulates links).
install: $(PROGRAMS)
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(BUILD)/bin/wanbond $(DESTDIR)$(BINDIR)/wanbond
	$(if $(wildcard $(DAEMON_MAIN)),install -d $(DESTDIR)$(SBINDIR) && install -m 0755 $(BUILD)/bin/wanbondd $(DESTDIR)$(SBINDIR)/wanbondd)
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|^\(Exec[A-Za-z]*\)=/usr/sbin/|\1=$(SBINDIR)/|' init/wanbond@.service >$(DESTDIR)$(SYSTEMDUNITDIR)/wanbond@.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/wanbond@.service
	install -m 0644 init/wanbond.target $(DESTDIR)$(SYSTEMDUNITDIR)/wanbond.target
	install -d $(DESTDIR)$(MANDIR)/man8
	install -m 0644 docs/man/wanbondd.8 docs/man/wanbond.8 $(DESTDIR)$(MANDIR)/man8/

install-linkem: $(BUILD)/bin/linkem
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(BUILD)/bin/linkem $(DESTDIR)$(BINDIR)/linkem

# The Debian package for a VPS (debian/, docs/debian.md). dpkg-buildpackage
# builds in debian/build (never BUILD: other flags) and writes its results to
# the source's parent directory; they are moved to BUILD/deb/ so that they
# are found in one place and leave nothing beside the source.
DEB_VERSION = $(shell dpkg-parsechangelog -S Version)
DEB_ARCH = $(shell dpkg-architecture -qDEB_HOST_ARCH)
DEB_RESULTS = wanbond_$(DEB_VERSION)_$(DEB_ARCH).deb wanbond-dbgsym_$(DEB_VERSION)_$(DEB_ARCH).deb \
	wanbond_$(DEB_VERSION)_$(DEB_ARCH).buildinfo wanbond_$(DEB_VERSION)_$(DEB_ARCH).changes
deb:
	dpkg-buildpackage -us -uc -b
	@mkdir -p $(BUILD)/deb
	$(Q)for f in $(DEB_RESULTS); do if [ -e ../$$f ]; then mv -f ../$$f $(BUILD)/deb/; fi; done
	@echo "deb: $(BUILD)/deb/wanbond_$(DEB_VERSION)_$(DEB_ARCH).deb"

clean:
	rm -rf $(BUILD)

.SECONDARY:

# (not those of the older wanbondd check-interop builds inside BUILD)
-include $(shell find $(BUILD) -path '$(BUILD)/interop-*' -prune -o -type f -name '*.d' -print 2>/dev/null)
