/* SPDX-License-Identifier: MIT */
/* The NFSv4 decoder's XDR pieces shared by nfs4.c (COMPOUND4args, CB_COMPOUND4args) and
 * nfs4_reply.c (COMPOUND4res) only. */
#ifndef IOTAPE_FORMATS_NFS4_INT_H
#define IOTAPE_FORMATS_NFS4_INT_H

#include "formats/nfs.h"
#include "formats/xdr.h"

#define NAME_MAX4 4096 /* component4 / utf8str; bounded again by the bytes left */
#define OPS_LIMIT 1024 /* ops walked per COMPOUND */
#define STATEID 16

static inline void skip_bitmap(struct cur *c)
{
	xdr_skip_array(c, 4, 64);
}

/* netaddr4: r_netid string, r_addr string */
static inline void skip_netaddr(struct cur *c)
{
	xdr_skip_opaque(c, NAME_MAX4);
	xdr_skip_opaque(c, NAME_MAX4);
}

/* netloc4 (RFC 7862 3.3): NL4_NAME 1, NL4_URL 2 utf8; NL4_NETADDR 3 netaddr4 */
static inline void skip_netloc(struct cur *c)
{
	uint32_t t = xdr_u32(c);

	if (t == 1 || t == 2)
		xdr_skip_opaque(c, NAME_MAX4);
	else if (t == 3)
		skip_netaddr(c);
	else
		c->err = true;
}

/* channel_attrs4 (RFC 8881 18.36): 6 counts and ca_rdma_ird<1> */
static inline void skip_channel_attrs(struct cur *c)
{
	cur_skip(c, 24);
	xdr_skip_array(c, 4, 1);
}

#endif
