/* SPDX-License-Identifier: MIT */
/* pid -> command name table, filled from PROCESS notify records. */
#include "formats/blktrace.h"

#include <stdlib.h>
#include <string.h>

#define COMM_LEN 32

struct comm_slot {
	uint32_t pid;
	int used;
	char name[COMM_LEN];
};

struct bt_comm_table {
	struct comm_slot *slots;
	size_t cap; /* power of two */
	size_t used;
};

struct bt_comm_table *bt_comm_table_new(void)
{
	struct bt_comm_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cap = 256;
	t->slots = calloc(t->cap, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

static struct comm_slot *find(struct comm_slot *slots, size_t cap, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (cap - 1);

	while (slots[i].used && slots[i].pid != pid)
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct bt_comm_table *t)
{
	size_t ncap = t->cap * 2;
	struct comm_slot *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].used)
			*find(n, ncap, t->slots[i].pid) = t->slots[i];
	free(t->slots);
	t->slots = n;
	t->cap = ncap;
	return 0;
}

int bt_comm_table_set(struct bt_comm_table *t, uint32_t pid, const char *name, size_t len)
{
	struct comm_slot *s;

	/* pids are bounded by the kernel (pid_max <= 4M), so the table is bounded too */
	if ((t->used + 1) * 2 > t->cap && grow(t))
		return -ENOMEM;
	s = find(t->slots, t->cap, pid);
	if (!s->used) {
		s->used = 1;
		s->pid = pid;
		t->used++;
	}
	if (len >= COMM_LEN)
		len = COMM_LEN - 1;
	memcpy(s->name, name, len);
	s->name[len] = '\0';
	/* names arrive NUL-padded; keep the printable prefix */
	s->name[strnlen(s->name, len)] = '\0';
	return 0;
}

const char *bt_comm_table_get(const struct bt_comm_table *t, uint32_t pid)
{
	const struct comm_slot *s;

	if (!t)
		return NULL;
	s = find(t->slots, t->cap, pid);
	return s->used ? s->name : NULL;
}

void bt_comm_table_free(struct bt_comm_table *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}
