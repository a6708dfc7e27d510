/* SPDX-License-Identifier: MIT */
/* The name records a decoder appends to a call (nfs_call.names), read by the handle map. */
#include "formats/nfs.h"

#include <string.h>

void nfs_names_put(struct nfs_call *call, enum nfs_nameop kind, unsigned idx, const void *a,
                   size_t alen, const void *b, size_t blen)
{
	size_t len = b ? 1 + alen + blen : alen;
	uint8_t *p;

	if (!call->names_cap)
		return;
	if (idx > 255 || alen > 0xffff || (b && alen > 255) ||
	    call->names_len + 4 + len > call->names_cap) {
		call->names_cut = true;
		call->names_cap = call->names_len; /* nothing after a gap: the walk must stop */
		return;
	}
	p = call->names + call->names_len;
	p[0] = (uint8_t)kind;
	p[1] = (uint8_t)idx;
	memcpy(p + 2, &(uint16_t){(uint16_t)len}, 2);
	p += 4;
	if (b) {
		*p++ = (uint8_t)alen;
		memcpy(p, a, alen);
		memcpy(p + alen, b, blen);
	} else if (alen) {
		memcpy(p, a, alen);
	}
	call->names_len = (uint16_t)(call->names_len + 4 + len);
}
