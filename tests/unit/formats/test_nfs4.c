/* SPDX-License-Identifier: MIT */
/* NFSv4 COMPOUND decoding op by op, the main-op rule, COPY and CB_OFFLOAD, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/nfs.h"
#include "test_nfs_build.h"

static const uint8_t FH[16] = "file-handle-0001";
static const uint8_t FH2[16] = "file-handle-0002";
static const uint8_t SID[16] = "stateid-12345678";

static void compound_hdr(struct wb *w, uint32_t minor, uint32_t nops)
{
	putopaque(w, "tag", 3);
	put32(w, minor);
	put32(w, nops);
}

static void op_sequence(struct wb *w)
{
	put32(w, OP4_SEQUENCE);
	putzero(w, 16);
	put32(w, 1);
	put32(w, 0);
	put32(w, 0);
	put32(w, 0);
}

static void op_putfh(struct wb *w, const uint8_t *fh)
{
	put32(w, OP4_PUTFH);
	putopaque(w, fh, 16);
}

static void op_getattr(struct wb *w)
{
	put32(w, OP4_GETATTR);
	put32(w, 2);
	put32(w, 0x18);
	put32(w, 0);
}

static void res_hdr(struct wb *w, uint32_t status, uint32_t nops)
{
	put32(w, status);
	putopaque(w, "tag", 3);
	put32(w, nops);
}

static void res_sequence(struct wb *w)
{
	put32(w, OP4_SEQUENCE);
	put32(w, 0);
	putzero(w, 36);
}

static void res_getattr_size(struct wb *w, uint64_t size)
{
	put32(w, OP4_GETATTR);
	put32(w, 0);
	put32(w, 1);
	put32(w, 0x18); /* change, size */
	put32(w, 16);
	put64(w, 5);
	put64(w, size);
}

/* an op's result in a COMPOUND reply: the op and its status */
static void res_op(struct wb *r, uint32_t op, uint32_t status)
{
	put32(r, op);
	put32(r, status);
}

/* nfs4_call(), nfs4_reply() and nfs4_cb_call() of the bytes in w */
static int call_of(const struct wb *w, struct nfs_call *c)
{
	struct cur cu = cur_make(w->b, w->n);

	return nfs4_call(&cu, c);
}

static int reply_of(const struct wb *r, const struct nfs_call *c, struct nfs_reply *p)
{
	struct cur cu = cur_make(r->b, r->n);

	return nfs4_reply(&cu, c, p);
}

static int cb_call_of(const struct wb *w, struct nfs_call *c)
{
	struct cur cu = cur_make(w->b, w->n);

	return nfs4_cb_call(&cu, c);
}

static void test_write_compound(void **state)
{
	struct wb w = {.n = 0}, r = {.n = 0};
	struct nfs_call c = {0};
	struct nfs_reply p = {0};

	(void)state;
	compound_hdr(&w, 1, 4);
	op_sequence(&w);
	op_putfh(&w, FH);
	put32(&w, OP4_WRITE);
	putbytes(&w, SID, 16);
	put64(&w, 12288);
	put32(&w, 2);
	putopaque(&w, "0123456789", 10);
	op_getattr(&w);
	assert_int_equal(call_of(&w, &c), 0);
	assert_true(c.decoded);
	assert_int_equal(c.minor, 1);
	assert_int_equal(c.nops, 4);
	assert_int_equal(c.op, OP4_WRITE);
	assert_int_equal(c.main_idx, 2);
	assert_int_equal(c.offset, 12288);
	assert_int_equal(c.count, 10);
	assert_int_equal(c.stable, 2);
	assert_int_equal(c.fh_len, 16);
	assert_memory_equal(c.fh, FH, 16);
	assert_int_equal(c.ops[3], OP4_GETATTR);
	assert_int_equal(c.data_len, 10);
	assert_memory_equal(c.data, "0123456789", 10);

	res_hdr(&r, 0, 4);
	res_sequence(&r);
	res_op(&r, OP4_PUTFH, 0);
	res_op(&r, OP4_WRITE, 0);
	put32(&r, 10);
	put32(&r, 2);
	putzero(&r, 8);
	res_getattr_size(&r, 12298);
	assert_int_equal(reply_of(&r, &c, &p), 0);
	assert_int_equal(p.status, 0);
	assert_int_equal(p.count, 10);
	assert_int_equal(p.committed, 2);
	assert_true(p.has_size);
	assert_int_equal(p.size, 12298);
}

static void test_main_op_rule(void **state)
{
	const uint16_t open[] = {OP4_PUTFH,  OP4_LOOKUP, OP4_GETATTR,
	                         OP4_ACCESS, OP4_OPEN,   OP4_GETFH};
	const uint16_t access[] = {OP4_PUTFH, OP4_ACCESS, OP4_GETATTR};
	const uint16_t getattr[] = {OP4_SEQUENCE, OP4_PUTFH, OP4_GETATTR};
	const uint16_t root[] = {OP4_PUTROOTFH, OP4_GETFH};
	const uint16_t commit_close[] = {OP4_PUTFH, OP4_COMMIT, OP4_CLOSE};
	const uint16_t rename[] = {OP4_PUTFH, OP4_SAVEFH, OP4_PUTFH, OP4_RENAME, OP4_GETATTR};
	const uint16_t lookup[] = {OP4_PUTROOTFH, OP4_LOOKUP, OP4_GETFH, OP4_GETATTR};

	(void)state;
	assert_int_equal(nfs4_main_op(open, 6), 4);
	assert_int_equal(nfs4_main_op(access, 3), 1);
	assert_int_equal(nfs4_main_op(getattr, 3), 2);
	assert_int_equal(nfs4_main_op(root, 2), 1);
	assert_int_equal(nfs4_main_op(commit_close, 3), 1);
	assert_int_equal(nfs4_main_op(rename, 5), 3);
	assert_int_equal(nfs4_main_op(lookup, 4), 1);
	assert_int_equal(nfs4_main_op(NULL, 0), -1);
	assert_string_equal(nfs4_op_name(OP4_COPY), "COPY");
	assert_string_equal(nfs4_op_name(OP4_READ_PLUS), "READ_PLUS");
	assert_string_equal(nfs4_cb_op_name(CB4_OFFLOAD), "CB_OFFLOAD");
	assert_null(nfs4_op_name(1000));
}

static void test_open_compound(void **state)
{
	struct wb w = {.n = 0}, r = {.n = 0};
	struct nfs_call c = {0};
	struct nfs_reply p = {0};

	(void)state;
	compound_hdr(&w, 0, 6);
	op_putfh(&w, FH);
	put32(&w, OP4_LOOKUP);
	putopaque(&w, "dir", 3);
	op_getattr(&w);
	put32(&w, OP4_ACCESS);
	put32(&w, 0x3f);
	put32(&w, OP4_OPEN);
	put32(&w, 0);  /* seqid */
	put32(&w, 3);  /* share access */
	put32(&w, 0);  /* deny */
	put64(&w, 77); /* clientid */
	putopaque(&w, "owner", 5);
	put32(&w, 1); /* OPEN4_CREATE */
	put32(&w, 0); /* UNCHECKED4 */
	put32(&w, 1); /* fattr4: bitmap<1> */
	put32(&w, 0x10);
	putopaque(&w, "\0\0\0\0\0\0\0\0", 8);
	put32(&w, 0); /* CLAIM_NULL */
	putopaque(&w, "newfile", 7);
	put32(&w, OP4_GETFH);
	call_of(&w, &c);
	assert_true(c.decoded);
	assert_int_equal(c.op, OP4_OPEN);
	assert_int_equal(c.nops, 6);
	/* what the replay needs: a create, unchecked, setting the size (attribute 4) to 0 */
	assert_true(c.creates);
	assert_false(c.exclusive);
	assert_int_equal(c.ftype, NFS_FT_REG);
	assert_int_equal(c.set, NFS_SET_SIZE);
	assert_int_equal(c.set_size, 0);
	/* reply: LOOKUP fails, the COMPOUND stops there */
	res_hdr(&r, 2, 2);
	res_op(&r, OP4_PUTFH, 0);
	res_op(&r, OP4_LOOKUP, 2);
	reply_of(&r, &c, &p);
	assert_int_equal(p.status, 2);
	assert_int_equal(p.op_status, 0);
}

/* SETATTR's size and mode, CREATE of a symbolic link with its text (for the replay) */
static void test_setattr_create(void **state)
{
	struct wb w = {.n = 0}, a = {.n = 0};
	uint8_t names[NFS_NAMES_BUF];
	struct nfs_call c = {0};

	(void)state;
	compound_hdr(&w, 0, 2);
	op_putfh(&w, FH);
	put32(&w, OP4_SETATTR);
	putzero(&w, 16); /* stateid */
	put32(&w, 2);    /* bitmap<2>: size (4), archive (14), mode (33) */
	put32(&w, 0x10 | 0x4000);
	put32(&w, 0x2);
	put64(&a, 12345); /* size */
	put32(&a, 1);     /* archive */
	put32(&a, 0100640);
	putopaque(&w, a.b, (uint32_t)a.n);
	call_of(&w, &c);
	assert_true(c.decoded);
	assert_int_equal(c.op, OP4_SETATTR);
	assert_int_equal(c.set, NFS_SET_SIZE | NFS_SET_MODE);
	assert_int_equal(c.set_size, 12345);
	assert_int_equal(c.set_mode, 0640);

	/* acl and mimetype stepped over; a numeric owner, a named group, both times */
	memset(&c, 0, sizeof(c));
	w.n = a.n = 0;
	compound_hdr(&w, 0, 2);
	op_putfh(&w, FH);
	put32(&w, OP4_SETATTR);
	putzero(&w, 16);
	put32(&w, 2); /* acl (12); mimetype (32), mode (33), owner, group, atime, mtime */
	put32(&w, 1u << 12);
	put32(&w, 1u << 0 | 1u << 1 | 1u << 4 | 1u << 5 | 1u << 16 | 1u << 22);
	put32(&a, 1); /* acl: one ace */
	putzero(&a, 12);
	putopaque(&a, "EVERYONE@", 9);
	putopaque(&a, "text/plain", 10);
	put32(&a, 0755);
	putopaque(&a, "1000", 4);
	putopaque(&a, "staff@example.com", 17);
	put32(&a, 0); /* atime: the server's */
	put32(&a, 1); /* mtime: the client's */
	put64(&a, 1700000000);
	put32(&a, 5);
	putopaque(&w, a.b, (uint32_t)a.n);
	call_of(&w, &c);
	assert_int_equal(c.set, NFS_SET_MODE | NFS_SET_UID | NFS_SET_ATIME_NOW | NFS_SET_MTIME);
	assert_int_equal(c.set_mode, 0755);
	assert_int_equal(c.set_uid, 1000);
	assert_true(c.owner_named);
	assert_int_equal(c.set_mtime_s, 1700000000);
	assert_int_equal(c.set_mtime_ns, 5);

	/* CREATE of a block device: its numbers */
	memset(&c, 0, sizeof(c));
	w.n = 0;
	compound_hdr(&w, 0, 2);
	op_putfh(&w, FH);
	put32(&w, OP4_CREATE);
	put32(&w, NFS_FT_BLK);
	put32(&w, 7);
	put32(&w, 1);
	putopaque(&w, "loop1", 5);
	put32(&w, 0);
	putopaque(&w, "", 0);
	call_of(&w, &c);
	assert_int_equal(c.ftype, NFS_FT_BLK);
	assert_int_equal(c.spec1, 7);
	assert_int_equal(c.spec2, 1);

	memset(&c, 0, sizeof(c));
	c.names = names;
	c.names_cap = sizeof(names);
	w.n = 0;
	compound_hdr(&w, 0, 3);
	op_putfh(&w, FH);
	put32(&w, OP4_CREATE);
	put32(&w, NFS_FT_LNK);
	putopaque(&w, "../t", 4);
	putopaque(&w, "ln", 2);
	put32(&w, 0); /* fattr4: no bits */
	putopaque(&w, "", 0);
	put32(&w, OP4_GETFH);
	call_of(&w, &c);
	assert_int_equal(c.op, OP4_CREATE);
	assert_int_equal(c.ftype, NFS_FT_LNK);
	assert_int_equal(c.set, 0);
	/* FH, DATA "../t", CREATE "ln", GETFH */
	assert_int_equal(names[0], NN_FH);
	{
		size_t off = 4 + sizeof(FH);

		assert_int_equal(names[off], NN_DATA);
		assert_int_equal(names[off + 1], 1);
		assert_memory_equal(names + off + 4, "../t", 4);
		off += 8;
		assert_int_equal(names[off], NN_CREATE);
		assert_memory_equal(names + off + 4, "ln", 2);
	}
}

static void test_copy_and_cb_offload(void **state)
{
	struct wb w = {.n = 0}, r = {.n = 0}, cb = {.n = 0};
	struct nfs_call c = {0}, k = {0};
	struct nfs_reply p = {0};

	(void)state;
	compound_hdr(&w, 2, 5);
	op_sequence(&w);
	op_putfh(&w, FH);
	put32(&w, OP4_SAVEFH);
	op_putfh(&w, FH2);
	put32(&w, OP4_COPY);
	putbytes(&w, SID, 16);
	putbytes(&w, SID, 16);
	put64(&w, 0);
	put64(&w, 0);
	put64(&w, 1 << 30);
	put32(&w, 1); /* consecutive */
	put32(&w, 0); /* asynchronous */
	put32(&w, 1); /* one source server */
	put32(&w, 3); /* NL4_NETADDR */
	putopaque(&w, "tcp", 3);
	putopaque(&w, "10.0.0.9.8.1", 12);
	call_of(&w, &c);
	assert_true(c.decoded);
	assert_int_equal(c.op, OP4_COPY);
	assert_int_equal(c.count, 1 << 30);
	assert_false(c.copy_sync);
	assert_memory_equal(c.fh, FH2, 16); /* the destination: the current handle */

	res_hdr(&r, 0, 5);
	res_sequence(&r);
	res_op(&r, OP4_PUTFH, 0);
	res_op(&r, OP4_SAVEFH, 0);
	res_op(&r, OP4_PUTFH, 0);
	res_op(&r, OP4_COPY, 0);
	put32(&r, 1);
	putbytes(&r, SID, 16);
	put64(&r, 0);
	put32(&r, 0);
	putzero(&r, 8);
	put32(&r, 1);
	put32(&r, 0);
	reply_of(&r, &c, &p);
	assert_true(p.copy_async);
	assert_memory_equal(p.copy_stateid, SID, 16);

	/* CB_COMPOUND: CB_SEQUENCE, CB_OFFLOAD */
	putopaque(&cb, "", 0);
	put32(&cb, 2);
	put32(&cb, 1);
	put32(&cb, 2);
	put32(&cb, CB4_SEQUENCE);
	putzero(&cb, 16);
	put32(&cb, 1);
	put32(&cb, 0);
	put32(&cb, 0);
	put32(&cb, 0);
	put32(&cb, 0);
	put32(&cb, CB4_OFFLOAD);
	putopaque(&cb, FH2, 16);
	putbytes(&cb, SID, 16);
	put32(&cb, 0);
	put32(&cb, 0);
	put64(&cb, 1 << 30);
	put32(&cb, 2);
	putzero(&cb, 8);
	cb_call_of(&cb, &k);
	assert_true(k.cb_offload);
	assert_int_equal(k.op, CB4_OFFLOAD);
	assert_int_equal(k.cb_count, 1 << 30);
	assert_memory_equal(k.cb_stateid, SID, 16);
}

static void test_42_ops(void **state)
{
	struct wb w = {.n = 0};
	struct nfs_call c = {0};

	(void)state;
	compound_hdr(&w, 2, 9);
	op_sequence(&w);
	op_putfh(&w, FH);
	put32(&w, OP4_ALLOCATE);
	putbytes(&w, SID, 16);
	put64(&w, 0);
	put64(&w, 4096);
	put32(&w, OP4_DEALLOCATE);
	putbytes(&w, SID, 16);
	put64(&w, 0);
	put64(&w, 4096);
	put32(&w, OP4_CLONE);
	putbytes(&w, SID, 16);
	putbytes(&w, SID, 16);
	put64(&w, 0);
	put64(&w, 0);
	put64(&w, 8192);
	put32(&w, OP4_OFFLOAD_STATUS);
	putbytes(&w, SID, 16);
	put32(&w, OP4_OFFLOAD_CANCEL);
	putbytes(&w, SID, 16);
	put32(&w, OP4_READ_PLUS);
	putbytes(&w, SID, 16);
	put64(&w, 0);
	put32(&w, 4096);
	op_getattr(&w);
	call_of(&w, &c);
	assert_true(c.decoded);
	assert_int_equal(c.nops, 9);
	assert_int_equal(c.op, OP4_ALLOCATE);
	assert_int_equal(c.count, 4096);
	assert_int_equal(c.ops[8], OP4_GETATTR);
}

static void test_read_plus_reply(void **state)
{
	struct wb r = {.n = 0};
	struct nfs_call c = {0};
	struct nfs_reply p = {0};

	(void)state;
	c.op = OP4_READ_PLUS;
	c.main_idx = 1;
	res_hdr(&r, 0, 2);
	res_op(&r, OP4_PUTFH, 0);
	res_op(&r, OP4_READ_PLUS, 0);
	put32(&r, 1); /* eof */
	put32(&r, 2);
	put32(&r, 0); /* data */
	put64(&r, 0);
	putopaque(&r, "abcd", 4);
	put32(&r, 1); /* hole */
	put64(&r, 4);
	put64(&r, 4092);
	reply_of(&r, &c, &p);
	assert_true(p.eof);
	assert_int_equal(p.count, 4096);
}

static void test_bad_input(void **state)
{
	struct wb w = {.n = 0};
	struct nfs_call c = {0};
	struct nfs_reply p;

	(void)state;
	compound_hdr(&w, 1, 0xffffffffu);
	op_putfh(&w, FH);
	put32(&w, 9999); /* unknown op: the walk stops */
	put32(&w, 0);
	assert_int_equal(call_of(&w, &c), 0);
	assert_int_equal(c.nops, 2);
	assert_false(c.decoded);
	/* tag length beyond the buffer */
	w.n = 0;
	put32(&w, 0x7fffffffu);
	memset(&c, 0, sizeof(c));
	assert_int_not_equal(call_of(&w, &c), 0);
	memset(&p, 0, sizeof(p));
	assert_int_not_equal(reply_of(&w, &c, &p), 0);
	/* a WRITE whose data runs past the kept head still gives offset and count */
	w.n = 0;
	memset(&c, 0, sizeof(c));
	compound_hdr(&w, 0, 2);
	op_putfh(&w, FH);
	put32(&w, OP4_WRITE);
	putbytes(&w, SID, 16);
	put64(&w, 1 << 20);
	put32(&w, 0);
	put32(&w, 1 << 20);
	putzero(&w, 100);
	call_of(&w, &c);
	assert_int_equal(c.op, OP4_WRITE);
	assert_int_equal(c.count, 1 << 20);
	assert_true(c.decoded);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_write_compound), cmocka_unit_test(test_main_op_rule),
	    cmocka_unit_test(test_open_compound),  cmocka_unit_test(test_copy_and_cb_offload),
	    cmocka_unit_test(test_42_ops),         cmocka_unit_test(test_read_plus_reply),
	    cmocka_unit_test(test_bad_input),      cmocka_unit_test(test_setattr_create),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
