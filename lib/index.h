/* SPDX-License-Identifier: MIT */
/*
 * The receiver-index table of a device: every message after the first
 * carries the index its receiver chose, which names the bond and the
 * handshake or session it belongs to. One server port serves many bonds this
 * way, without ever looking at source addresses (which NAT changes).
 */
#ifndef WB_INDEX_H
#define WB_INDEX_H

#include <stdint.h>

struct wb_bond;
struct wb_keypair;

enum wb_index_kind {
	WB_INDEX_FREE,
	WB_INDEX_HANDSHAKE,
	WB_INDEX_KEYPAIR,
};

struct wb_index_entry {
	uint32_t index;
	enum wb_index_kind kind;
	struct wb_bond *bond;
	struct wb_keypair *keypair; /* WB_INDEX_KEYPAIR */
};

struct wb_index_table {
	struct wb_index_entry *slots;
	uint32_t cap, count;
};

void wb_index_init(struct wb_index_table *t);
void wb_index_free(struct wb_index_table *t);
/* -EEXIST if the index is taken, -ENOMEM. */
int wb_index_insert(struct wb_index_table *t, const struct wb_index_entry *e);
struct wb_index_entry *wb_index_find(struct wb_index_table *t, uint32_t index);
void wb_index_remove(struct wb_index_table *t, uint32_t index);

#endif
