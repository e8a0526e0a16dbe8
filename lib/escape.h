/* SPDX-License-Identifier: MIT */
/*
 * Text that came from outside (a peer's uplink names, an event's text) is
 * escaped before it reaches a log or a terminal, so no byte of it can forge
 * a log line (a newline) or drive a terminal (an escape sequence).
 */
#ifndef WB_ESCAPE_H
#define WB_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Copies in to out (size > 0 bytes, always NUL-terminated, cut at a whole
 * character if it does not fit), each byte outside printable ASCII (0x20 to
 * 0x7e) written as \xHH. Returns out.
 */
char *wb_escape(char *out, size_t size, const char *in);

/* True when in needs no escaping. */
bool wb_printable(const char *in);

#endif
