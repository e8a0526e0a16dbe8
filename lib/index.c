// SPDX-License-Identifier: MIT
/* Open addressing with linear probing; removal shifts the run back (no tombstones). */
#include "index.h"

#include <errno.h>
#include <stdlib.h>

void wb_index_init(struct wb_index_table *t)
{
	*t = (struct wb_index_table){ 0 };
}

void wb_index_free(struct wb_index_table *t)
{
	free(t->slots);
	wb_index_init(t);
}

static uint32_t home(const struct wb_index_table *t, uint32_t index)
{
	/* Indices are random, but a multiplicative hash costs nothing and guards against a poor source. */
	return (index * 2654435761u) & (t->cap - 1);
}

static int grow(struct wb_index_table *t)
{
	struct wb_index_table bigger = { .cap = t->cap ? t->cap * 2 : 16 };

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->slots[i].kind != WB_INDEX_FREE)
			wb_index_insert(&bigger, &t->slots[i]);
	free(t->slots);
	*t = bigger;
	return 0;
}

int wb_index_insert(struct wb_index_table *t, const struct wb_index_entry *e)
{
	uint32_t i;

	if (wb_index_find(t, e->index))
		return -EEXIST;
	/* Keep the table at most half full, so probe runs stay short. */
	if ((t->count + 1) * 2 > t->cap && grow(t))
		return -ENOMEM;
	for (i = home(t, e->index); t->slots[i].kind != WB_INDEX_FREE; i = (i + 1) & (t->cap - 1))
		;
	t->slots[i] = *e;
	t->count++;
	return 0;
}

struct wb_index_entry *wb_index_find(struct wb_index_table *t, uint32_t index)
{
	if (!t->cap)
		return NULL;
	for (uint32_t i = home(t, index); t->slots[i].kind != WB_INDEX_FREE; i = (i + 1) & (t->cap - 1))
		if (t->slots[i].index == index)
			return &t->slots[i];
	return NULL;
}

/* Moves later entries of the run into the hole when their home allows it. */
void wb_index_remove(struct wb_index_table *t, uint32_t index)
{
	struct wb_index_entry *e = wb_index_find(t, index);
	uint32_t hole, j, mask = t->cap - 1;

	if (!e)
		return;
	hole = (uint32_t)(e - t->slots);
	t->slots[hole].kind = WB_INDEX_FREE;
	t->count--;
	for (j = (hole + 1) & mask; t->slots[j].kind != WB_INDEX_FREE; j = (j + 1) & mask) {
		uint32_t h = home(t, t->slots[j].index);

		/* The entry at j may fill the hole if its home is not cyclically in (hole, j]. */
		if ((j > hole && (h <= hole || h > j)) || (j < hole && h <= hole && h > j)) {
			t->slots[hole] = t->slots[j];
			t->slots[j].kind = WB_INDEX_FREE;
			hole = j;
		}
	}
}
