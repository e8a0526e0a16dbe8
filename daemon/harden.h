/* SPDX-License-Identifier: MIT */
/*
 * The process's own protection of the secrets it holds: the private key
 * and the preshared key are in its memory from the configuration's reading
 * on. A crash, or the watchdog's SIGABRT, would write them to disk in a
 * core dump (a core file, systemd-coredump, a crash reporter), and a
 * dumpable process lets any other process of its user read its memory
 * (/proc/PID/mem, ptrace). So, first thing in main, before any key is
 * read:
 *   - RLIMIT_CORE 0, the hard limit too, so that nothing later raises it
 *     again: no core file, and systemd-coredump stores none;
 *   - PR_SET_DUMPABLE 0: the kernel dumps no core of it at all (unless
 *     fs.suid_dumpable is 2, when the limit above still holds), gives its
 *     /proc/PID files to root, and lets only CAP_SYS_PTRACE read its memory.
 */
#ifndef WB_DAEMON_HARDEN_H
#define WB_DAEMON_HARDEN_H

#include <stddef.h>

/* 0, or -errno with the call that failed and why in err. Neither should ever fail. */
int harden_no_core_dumps(char *err, size_t errlen);

#endif
