/* SPDX-License-Identifier: MIT */
/* NFSv3 decoder: all 22 procedures, READ/WRITE/COMMIT fields, statuses, sizes, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/nfs.h"
#include "test_nfs_build.h"

static const uint8_t FH[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static void fattr3(struct wb *w, uint64_t size)
{
	put32(w, 1); /* NF3REG */
	put32(w, 0644);
	put32(w, 1);
	put32(w, 0);
	put32(w, 0);
	put64(w, size);
	put64(w, size); /* used */
	putzero(w, 8);  /* rdev */
	put64(w, 1);    /* fsid */
	put64(w, 99);   /* fileid */
	putzero(w, 24); /* times */
}

static void post_op(struct wb *w, uint64_t size)
{
	put32(w, 1);
	fattr3(w, size);
}

static void wcc(struct wb *w, uint64_t size)
{
	put32(w, 1);
	putzero(w, 24);
	post_op(w, size);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(nfs3_proc_name(0), "NULL");
	assert_string_equal(nfs3_proc_name(17), "READDIRPLUS");
	assert_string_equal(nfs3_proc_name(21), "COMMIT");
	assert_null(nfs3_proc_name(22));
	assert_string_equal(nfs_status_name(2), "NOENT");
	assert_string_equal(nfs_status_name(10008), "DELAY");
}

static void test_every_call(void **state)
{
	uint32_t p;

	(void)state;
	for (p = 0; p < NFS3_NPROCS; p++) {
		struct wb w = {.n = 0};
		struct nfs_call c;
		struct cur cu;

		memset(&c, 0, sizeof(c));
		if (p) {
			putopaque(&w, FH, sizeof(FH));
			if (p == 6 || p == 21) {
				put64(&w, 1u << 20);
				put32(&w, 65536);
			} else if (p == 7) {
				put64(&w, 8192);
				put32(&w, 4);
				put32(&w, 2); /* FILE_SYNC */
				putopaque(&w, "data", 4);
			} else {
				putopaque(&w, "name",
				          4); /* enough for any other procedure's head */
			}
		}
		cu = cur_make(w.b, w.n);
		assert_int_equal(nfs3_call(&cu, p, &c), 0);
		assert_true(c.decoded);
		assert_int_equal(c.op, p);
		if (p) {
			assert_int_equal(c.fh_len, sizeof(FH));
			assert_memory_equal(c.fh, FH, sizeof(FH));
		}
		if (p == 6 || p == 21) {
			assert_true(c.has_io);
			assert_int_equal(c.offset, 1u << 20);
			assert_int_equal(c.count, 65536);
		}
		if (p == 7) {
			assert_int_equal(c.offset, 8192);
			assert_int_equal(c.count, 4);
			assert_int_equal(c.stable, 2);
		}
	}
}

/* sattr3 of SETATTR and CREATE, MKDIR's, a SYMLINK's text: what the replay does */
static void test_set_attrs(void **state)
{
	struct wb w = {.n = 0};
	uint8_t names[NFS_NAMES_BUF];
	struct nfs_call c;
	struct cur cu;

	(void)state;
	memset(&c, 0, sizeof(c));
	putopaque(&w, FH, sizeof(FH));
	put32(&w, 1); /* mode */
	put32(&w, 0600);
	put32(&w, 0); /* uid */
	put32(&w, 1); /* gid */
	put32(&w, 5);
	put32(&w, 1); /* size */
	put64(&w, 1u << 20);
	put32(&w, 2); /* atime: client's time */
	put64(&w, 7);
	put32(&w, 1); /* mtime: server's */
	put32(&w, 0); /* guard */
	cu = cur_make(w.b, w.n);
	assert_int_equal(nfs3_call(&cu, 2, &c), 0);
	assert_int_equal(c.set, NFS_SET_MODE | NFS_SET_SIZE | NFS_SET_GID | NFS_SET_ATIME |
	                            NFS_SET_MTIME_NOW);
	assert_int_equal(c.set_mode, 0600);
	assert_int_equal(c.set_size, 1u << 20);
	assert_int_equal(c.set_gid, 5);
	assert_int_equal(c.set_atime_s, 0);
	assert_int_equal(c.set_atime_ns, 7);

	/* uid, and the client's mtime */
	memset(&c, 0, sizeof(c));
	w.n = 0;
	putopaque(&w, FH, sizeof(FH));
	put32(&w, 0); /* mode */
	put32(&w, 1); /* uid */
	put32(&w, 1000);
	put32(&w, 0); /* gid */
	put32(&w, 0); /* size */
	put32(&w, 0); /* atime: unchanged */
	put32(&w, 2); /* mtime: client's */
	put32(&w, 1700000000);
	put32(&w, 123456789);
	put32(&w, 0); /* guard */
	cu = cur_make(w.b, w.n);
	assert_int_equal(nfs3_call(&cu, 2, &c), 0);
	assert_int_equal(c.set, NFS_SET_UID | NFS_SET_MTIME);
	assert_int_equal(c.set_uid, 1000);
	assert_int_equal(c.set_mtime_s, 1700000000);
	assert_int_equal(c.set_mtime_ns, 123456789);

	/* MKNOD of a character device: its mode and numbers */
	memset(&c, 0, sizeof(c));
	w.n = 0;
	putopaque(&w, FH, sizeof(FH));
	putopaque(&w, "null", 4);
	put32(&w, NFS_FT_CHR);
	put32(&w, 1); /* mode */
	put32(&w, 0620);
	putzero(&w, 4 * 5);
	put32(&w, 1); /* specdata3 */
	put32(&w, 3);
	cu = cur_make(w.b, w.n);
	assert_int_equal(nfs3_call(&cu, 11, &c), 0);
	assert_int_equal(c.ftype, NFS_FT_CHR);
	assert_int_equal(c.set, NFS_SET_MODE);
	assert_int_equal(c.set_mode, 0620);
	assert_int_equal(c.spec1, 1);
	assert_int_equal(c.spec2, 3);

	/* WRITE: its payload where the bytes hold it, and as far as they do */
	memset(&c, 0, sizeof(c));
	w.n = 0;
	putopaque(&w, FH, sizeof(FH));
	put64(&w, 4096);
	put32(&w, 6);
	put32(&w, 2);
	putopaque(&w, "abcdef", 6);
	cu = cur_make(w.b, w.n);
	assert_int_equal(nfs3_call(&cu, 7, &c), 0);
	assert_int_equal(c.data_len, 6);
	assert_memory_equal(c.data, "abcdef", 6);
	memset(&c, 0, sizeof(c));
	cu = cur_make(w.b, w.n - 6); /* cut inside the payload */
	assert_int_equal(nfs3_call(&cu, 7, &c), 0);
	assert_int_equal(c.count, 6);
	assert_int_equal(c.data_len, 2);
	memset(&c, 0, sizeof(c));
	cu = cur_make(w.b, 4 + sizeof(FH) + 16); /* cut before the payload's length */
	assert_int_equal(nfs3_call(&cu, 7, &c), 0);
	assert_true(c.decoded);
	assert_int_equal(c.data_len, 0);

	/* CREATE GUARDED with a mode */
	memset(&c, 0, sizeof(c));
	w.n = 0;
	putopaque(&w, FH, sizeof(FH));
	putopaque(&w, "f", 1);
	put32(&w, 1); /* GUARDED */
	put32(&w, 1);
	put32(&w, 0640);
	putzero(&w, 4 * 5);
	cu = cur_make(w.b, w.n);
	assert_int_equal(nfs3_call(&cu, 8, &c), 0);
	assert_true(c.creates);
	assert_true(c.exclusive);
	assert_int_equal(c.ftype, NFS_FT_REG);
	assert_int_equal(c.set, NFS_SET_MODE);
	assert_int_equal(c.set_mode, 0640);

	/* SYMLINK: its text as a name record after FH, CREATE and GETFH */
	memset(&c, 0, sizeof(c));
	c.names = names;
	c.names_cap = sizeof(names);
	w.n = 0;
	putopaque(&w, FH, sizeof(FH));
	putopaque(&w, "ln", 2);
	putzero(&w, 4 * 6); /* sattr3: nothing set */
	putopaque(&w, "a/b", 3);
	cu = cur_make(w.b, w.n);
	assert_int_equal(nfs3_call(&cu, 10, &c), 0);
	assert_int_equal(c.ftype, NFS_FT_LNK);
	{
		size_t off = (4 + sizeof(FH)) + (4 + 2) + 4;

		assert_int_equal(names[off], NN_DATA);
		assert_memory_equal(names + off + 4, "a/b", 3);
	}
}

static void test_every_reply(void **state)
{
	uint32_t p;

	(void)state;
	for (p = 1; p < NFS3_NPROCS; p++) {
		struct wb w = {.n = 0};
		struct nfs_reply r;
		struct cur cu;
		bool want_size = true;

		memset(&r, 0, sizeof(r));
		put32(&w, 0);
		switch (p) {
		case 1:
			fattr3(&w, 777);
			break;
		case 2:
		case 12:
		case 13:
			wcc(&w, 777);
			break;
		case 21:
			wcc(&w, 777);
			putzero(&w, 8);
			break;
		case 7:
			wcc(&w, 777);
			put32(&w, 4096);
			put32(&w, 1);
			putzero(&w, 8);
			break;
		case 3:
			putopaque(&w, FH, sizeof(FH));
			post_op(&w, 777);
			post_op(&w, 4096);
			break;
		case 6:
			post_op(&w, 777);
			put32(&w, 100);
			put32(&w, 1);
			putopaque(&w, "x", 1);
			break;
		case 8:
		case 9:
		case 10:
		case 11:
			put32(&w, 1);
			putopaque(&w, FH, sizeof(FH));
			post_op(&w, 777);
			wcc(&w, 4096);
			break;
		case 14:
			wcc(&w, 1);
			wcc(&w, 2);
			want_size = false;
			break;
		default:
			post_op(&w, 777);
			putzero(&w, 16);
			break;
		}
		cu = cur_make(w.b, w.n);
		assert_int_equal(nfs3_reply(&cu, p, &r), 0);
		assert_true(r.decoded);
		assert_int_equal(r.status, 0);
		assert_int_equal(r.has_size, want_size);
		if (want_size)
			assert_int_equal(r.size, 777);
		if (p == 6) {
			assert_int_equal(r.count, 100);
			assert_true(r.eof);
		}
		if (p == 7) {
			assert_int_equal(r.count, 4096);
			assert_int_equal(r.committed, 1);
		}
	}
}

static void test_error_reply(void **state)
{
	struct wb w = {.n = 0};
	struct nfs_reply r;
	struct cur cu;

	(void)state;
	memset(&r, 0, sizeof(r));
	put32(&w, 2); /* NFS3ERR_NOENT */
	put32(&w, 0); /* dir attributes do not follow */
	cu = cur_make(w.b, w.n);
	assert_int_equal(nfs3_reply(&cu, 3, &r), 0);
	assert_int_equal(r.status, 2);
	assert_false(r.has_size);
}

static void test_bad_input(void **state)
{
	struct wb w = {.n = 0};
	struct nfs_call c;
	struct nfs_reply r;
	struct cur cu;

	(void)state;
	memset(&c, 0, sizeof(c));
	put32(&w, 65); /* file handle longer than NFS3_FHSIZE */
	putzero(&w, 68);
	cu = cur_make(w.b, w.n);
	assert_int_not_equal(nfs3_call(&cu, 1, &c), 0);
	assert_false(c.decoded);
	w.n = 0;
	put32(&w, 0xffffffffu);
	cu = cur_make(w.b, w.n);
	assert_int_not_equal(nfs3_call(&cu, 6, &c), 0);
	cu = cur_make(w.b, 0);
	memset(&r, 0, sizeof(r));
	assert_int_not_equal(nfs3_reply(&cu, 6, &r), 0);
	/* a READ cut right after the handle: no I/O fields */
	w.n = 0;
	memset(&c, 0, sizeof(c));
	putopaque(&w, FH, sizeof(FH));
	put32(&w, 0);
	cu = cur_make(w.b, w.n);
	nfs3_call(&cu, 6, &c);
	assert_false(c.has_io);
	assert_int_not_equal(nfs3_call(&cu, 99, &c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),       cmocka_unit_test(test_every_call),
	    cmocka_unit_test(test_every_reply), cmocka_unit_test(test_error_reply),
	    cmocka_unit_test(test_bad_input),   cmocka_unit_test(test_set_attrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
