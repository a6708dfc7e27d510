/* SPDX-License-Identifier: MIT */
/* The handle -> path map on hand-built NFSv3, NFSv4 and MOUNT calls and replies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "formats/nfs_names.h"
#include "formats/rpc.h"
#include "test_nfs_build.h"

static const uint8_t ROOT[8] = "rootfh00";

/* A decoder feeding the map; the main-op node of the last transaction in last. */
struct fix {
	struct rpc_dec *d;
	struct nfs_names *m;
	uint32_t xid;
	uint32_t last;
	unsigned ntx;
	char path[512];
};

static void on_txn(void *arg, const struct rpc_txn *t)
{
	struct fix *f = arg;

	f->last = nfs_names_txn(f->m, t);
	f->ntx++;
}

static void fix_init(struct fix *f, uint32_t max_nodes)
{
	struct nfs_names_cfg cfg = {.max_nodes = max_nodes};

	memset(f, 0, sizeof(*f));
	assert_int_equal(rpc_dec_new(&f->d, NULL, on_txn, f), 0);
	assert_int_equal(nfs_names_new(&f->m, &cfg), 0);
	f->xid = 100;
}

static void fix_free(struct fix *f)
{
	rpc_dec_free(f->d);
	nfs_names_free(f->m);
}

static void feed(struct fix *f, const struct wb *msg, int from_server)
{
	static const struct net_endpoint cli = {{4, {10, 0, 0, 1}}, 800},
	                                 srv = {{4, {10, 0, 0, 2}}, 2049};
	struct rpc_record r = {
	    .head = msg->b,
	    .head_len = (uint32_t)msg->n,
	    .len = msg->n,
	    .ts_ns = 1000 + f->xid,
	    .conn_id = 1,
	    .dir = from_server,
	    .proto = 6,
	    .src = from_server ? &srv : &cli,
	    .dst = from_server ? &cli : &srv,
	};

	rpc_dec_record(f->d, &r);
}

/* One call and its reply: body builders fill the argument and result bytes. */
static void exchange(struct fix *f, uint32_t prog, uint32_t vers, uint32_t proc,
                     const struct wb *args, const struct wb *res)
{
	struct wb c = {.n = 0}, r = {.n = 0};
	uint32_t xid = ++f->xid;

	rpc_call_hdr(&c, xid, prog, vers, proc, AUTHB_SYS);
	putbytes(&c, args->b, args->n);
	rpc_reply_hdr(&r, xid, 0);
	putbytes(&r, res->b, res->n);
	f->last = NFS_NAME_NONE - 1;
	feed(f, &c, 0);
	feed(f, &r, 1);
	assert_int_not_equal(f->last, NFS_NAME_NONE - 1);
}

static const char *path(struct fix *f, uint32_t id, unsigned *flags)
{
	unsigned fl = nfs_names_path(f->m, id, f->path, sizeof(f->path));

	if (flags)
		*flags = fl;
	return f->path;
}

/* --- NFSv3 and MOUNT --- */

static void mnt(struct fix *f, const char *dirpath, const uint8_t *fh)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	putopaque(&a, dirpath, (uint32_t)strlen(dirpath));
	put32(&r, 0);
	putopaque(&r, fh, 8);
	put32(&r, 1); /* auth flavors */
	put32(&r, 1);
	exchange(f, RPC_PROG_MOUNT, 3, 1, &a, &r);
}

static void post_op_attr_none(struct wb *w)
{
	put32(w, 0);
}

static uint32_t lookup3(struct fix *f, const uint8_t *dir, const char *name, const uint8_t *fh,
                        uint32_t status)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	putopaque(&a, dir, 8);
	putopaque(&a, name, (uint32_t)strlen(name));
	put32(&r, status);
	if (status == 0)
		putopaque(&r, fh, 8);
	post_op_attr_none(&r);
	if (status == 0)
		post_op_attr_none(&r);
	exchange(f, RPC_PROG_NFS, 3, 3, &a, &r);
	return f->last;
}

/* CREATE (8) or MKDIR (9): createhow UNCHECKED with empty sattr3 / sattr3 */
static uint32_t create3(struct fix *f, uint32_t proc, const uint8_t *dir, const char *name,
                        const uint8_t *fh)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	putopaque(&a, dir, 8);
	putopaque(&a, name, (uint32_t)strlen(name));
	if (proc == 8)
		put32(&a, 0);
	putzero(&a, 24); /* sattr3: six "don't set" */
	put32(&r, 0);
	put32(&r, fh != NULL);
	if (fh)
		putopaque(&r, fh, 8);
	post_op_attr_none(&r);
	put32(&r, 0); /* wcc_data: no pre */
	post_op_attr_none(&r);
	exchange(f, RPC_PROG_NFS, 3, proc, &a, &r);
	return f->last;
}

static uint32_t read3(struct fix *f, const uint8_t *fh)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	putopaque(&a, fh, 8);
	put64(&a, 0);
	put32(&a, 4096);
	put32(&r, 0);
	post_op_attr_none(&r);
	put32(&r, 0);
	put32(&r, 1);
	put32(&r, 0);
	exchange(f, RPC_PROG_NFS, 3, 6, &a, &r);
	return f->last;
}

static void rename3(struct fix *f, const uint8_t *d1, const char *n1, const uint8_t *d2,
                    const char *n2, uint32_t status)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	putopaque(&a, d1, 8);
	putopaque(&a, n1, (uint32_t)strlen(n1));
	putopaque(&a, d2, 8);
	putopaque(&a, n2, (uint32_t)strlen(n2));
	put32(&r, status);
	putzero(&r, 16); /* two wcc_data, empty */
	exchange(f, RPC_PROG_NFS, 3, 14, &a, &r);
}

static void remove3(struct fix *f, const uint8_t *dir, const char *name)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	putopaque(&a, dir, 8);
	putopaque(&a, name, (uint32_t)strlen(name));
	put32(&r, 0);
	putzero(&r, 8);
	exchange(f, RPC_PROG_NFS, 3, 12, &a, &r);
}

static void readdirplus3(struct fix *f, const uint8_t *dir, const char *const *names,
                         const uint8_t (*fhs)[8], unsigned n)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	putopaque(&a, dir, 8);
	put64(&a, 0);
	putzero(&a, 8);
	put32(&a, 4096);
	put32(&a, 65536);
	put32(&r, 0);
	post_op_attr_none(&r);
	putzero(&r, 8);
	for (unsigned i = 0; i < n; i++) {
		put32(&r, 1);
		put64(&r, 1000 + i);
		putopaque(&r, names[i], (uint32_t)strlen(names[i]));
		put64(&r, i + 1);
		post_op_attr_none(&r);
		put32(&r, 1);
		putopaque(&r, fhs[i], 8);
	}
	put32(&r, 0);
	put32(&r, 1);
	exchange(f, RPC_PROG_NFS, 3, 17, &a, &r);
}

static void test_v3_names(void **state)
{
	struct fix f;
	static const uint8_t D[8] = "dirfh001", F[8] = "filefh01", A[8] = "entfh00a",
	                     B[8] = "entfh00b";
	static const char *const ents[] = {".", "a", "b"};
	static const uint8_t efh[3][8] = {"dotfh000", "entfh00a", "entfh00b"};
	uint32_t d, file, x;
	unsigned fl;

	(void)state;
	fix_init(&f, 0);
	mnt(&f, "/srv/export", ROOT);
	assert_int_equal(f.last, NFS_NAME_NONE);
	d = create3(&f, 9, ROOT, "d", D);
	assert_string_equal(path(&f, d, &fl), "/srv/export/d");
	assert_int_equal(fl, NFS_PATH_ROOTED);
	file = create3(&f, 8, D, "f", F);
	assert_string_equal(path(&f, file, NULL), "/srv/export/d/f");
	/* the same handle read later: the same node */
	assert_int_equal(read3(&f, F), file);
	assert_int_equal(lookup3(&f, D, "f", F, 0), file);
	/* a failed LOOKUP names nothing: the directory is the node it worked on */
	assert_int_equal(lookup3(&f, D, "missing", NULL, 2), d);
	assert_int_equal(nfs_names_child(f.m, d, "missing", 7), NFS_NAME_NONE);
	/* RENAME moves the node; a failed one does not */
	rename3(&f, D, "f", ROOT, "g", 0);
	assert_string_equal(path(&f, file, NULL), "/srv/export/g");
	rename3(&f, ROOT, "g", D, "h", 13);
	assert_string_equal(path(&f, file, NULL), "/srv/export/g");
	assert_int_equal(nfs_names_child(f.m, d, "f", 1), NFS_NAME_NONE);
	/* READDIRPLUS names its entries ("." is not a name) */
	readdirplus3(&f, D, ents, efh, 3);
	x = nfs_names_handle(f.m, &(struct rpc_txn){.server = {{4, {10, 0, 0, 2}}, 2049}}, A, 8,
	                     false);
	assert_string_equal(path(&f, x, NULL), "/srv/export/d/a");
	assert_int_equal(nfs_names_child(f.m, d, "b", 1),
	                 nfs_names_handle(f.m,
	                                  &(struct rpc_txn){.server = {{4, {10, 0, 0, 2}}, 2049}},
	                                  B, 8, false));
	assert_int_equal(nfs_names_child(f.m, d, ".", 1), NFS_NAME_NONE);
	/* REMOVE: the node stays (its handle may still be in use), marked removed */
	remove3(&f, ROOT, "g");
	assert_string_equal(path(&f, file, &fl), "/srv/export/g");
	assert_true(fl & NFS_PATH_REMOVED);
	assert_int_equal(read3(&f, F), file);
	/* a new file under the old name is another node */
	x = create3(&f, 8, ROOT, "g", (const uint8_t *)"newfh000");
	assert_int_not_equal(x, file);
	assert_string_equal(path(&f, x, &fl), "/srv/export/g");
	assert_false(fl & NFS_PATH_REMOVED);
	assert_true(nfs_names_counters(f.m)->removed >= 1);
	fix_free(&f);
}

static void test_placeholder_named_later(void **state)
{
	struct fix f;
	static const uint8_t X[8] = "unknown1", C[8] = "childfh1";
	uint32_t x, c, d;
	unsigned fl;
	struct nfs_name_info in;

	(void)state;
	fix_init(&f, 0);
	/* a capture that starts after the mount: handles used before they are named */
	x = read3(&f, X);
	assert_string_equal(path(&f, x, &fl), "<fh:756e6b6e6f776e31>");
	assert_int_equal(fl, NFS_PATH_PLACEHOLDER);
	c = lookup3(&f, X, "c", C, 0);
	assert_string_equal(path(&f, c, NULL), "<fh:756e6b6e6f776e31>/c");
	/* the root's MOUNT is seen later: the placeholder becomes the root, same id */
	mnt(&f, "/exp", X);
	assert_string_equal(path(&f, x, &fl), "/exp");
	assert_int_equal(fl, NFS_PATH_ROOTED);
	assert_string_equal(path(&f, c, NULL), "/exp/c");
	/* a placeholder found under a name keeps its id */
	x = read3(&f, (const uint8_t *)"unknown2");
	d = lookup3(&f, C, "deep", (const uint8_t *)"unknown2", 0);
	assert_int_equal(d, x);
	assert_string_equal(path(&f, x, NULL), "/exp/c/deep");
	assert_int_equal(nfs_names_info(f.m, x, &in), 0);
	assert_int_equal(in.parent, c);
	assert_int_equal(in.fh_len, 8);
	assert_memory_equal(in.name, "deep", 4);
	fix_free(&f);
}

static void link3(struct fix *f, const uint8_t *file, const uint8_t *dir, const char *name)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	putopaque(&a, file, 8);
	putopaque(&a, dir, 8);
	putopaque(&a, name, (uint32_t)strlen(name));
	put32(&r, 0);
	post_op_attr_none(&r);
	putzero(&r, 8); /* wcc_data, empty */
	exchange(f, RPC_PROG_NFS, 3, 15, &a, &r);
}

/* Names follow the file while any link to it lives (#28 item 3): ln a/f3 keep/f3hard; a
 * lookup of a/f3 (a FUSE client's); rm a/f3; mv keep kept: the file is alive as
 * kept/f3hard, not removed at a/f3; a rename over a name and the removal of the last link
 * remove it. */
static void test_hard_links(void **state)
{
	struct fix f;
	static const uint8_t A[8] = "dir0000a", K[8] = "dir0000k", F[8] = "file00f3",
	                     G[8] = "file00g0";
	uint32_t file, g;
	unsigned fl;

	(void)state;
	fix_init(&f, 0);
	mnt(&f, "/e", ROOT);
	create3(&f, 9, ROOT, "a", A);
	file = create3(&f, 8, A, "f3", F);
	create3(&f, 9, ROOT, "keep", K);
	link3(&f, F, K, "f3hard");
	assert_int_equal(lookup3(&f, K, "f3hard", F, 0), file);
	assert_int_equal(lookup3(&f, A, "f3", F, 0), file);
	assert_string_equal(path(&f, file, &fl), "/e/a/f3");
	remove3(&f, A, "f3");
	rename3(&f, ROOT, "keep", ROOT, "kept", 0);
	assert_string_equal(path(&f, file, &fl), "/e/kept/f3hard");
	assert_false(fl & NFS_PATH_REMOVED);
	assert_int_equal(nfs_names_child(f.m, nfs_names_child(f.m, 0, "a", 1), "f3", 2),
	                 NFS_NAME_NONE);
	assert_int_equal(read3(&f, F), file);
	/* two links again; a rename of one link over the other is nothing (rename(2)) */
	link3(&f, F, ROOT, "top");
	rename3(&f, ROOT, "top", K, "f3hard", 0);
	assert_string_equal(path(&f, file, &fl), "/e/kept/f3hard");
	/* a link renamed; the name the file is shown by removed: the other one shows it */
	rename3(&f, ROOT, "top", A, "moved", 0);
	remove3(&f, K, "f3hard");
	assert_string_equal(path(&f, file, &fl), "/e/a/moved");
	assert_false(fl & NFS_PATH_REMOVED);
	/* another file renamed over the last link: the file is gone */
	g = create3(&f, 8, ROOT, "g", G);
	rename3(&f, ROOT, "g", A, "moved", 0);
	assert_string_equal(path(&f, g, NULL), "/e/a/moved");
	path(&f, file, &fl);
	assert_true(fl & NFS_PATH_REMOVED);
	/* the last link of g removed */
	link3(&f, G, ROOT, "g2");
	remove3(&f, A, "moved");
	assert_string_equal(path(&f, g, &fl), "/e/g2");
	remove3(&f, ROOT, "g2");
	path(&f, g, &fl);
	assert_true(fl & NFS_PATH_REMOVED);
	fix_free(&f);
}

static void test_cycle_refused(void **state)
{
	struct fix f;
	static const uint8_t A[8] = "dir0000a", B[8] = "dir0000b";
	uint32_t a, b;

	(void)state;
	fix_init(&f, 0);
	mnt(&f, "/e", ROOT);
	a = create3(&f, 9, ROOT, "a", A);
	b = create3(&f, 9, A, "b", B);
	/* a server would refuse this; a hostile capture claims it succeeded */
	rename3(&f, ROOT, "a", B, "a2", 0);
	assert_int_equal(nfs_names_counters(f.m)->refused, 1);
	assert_string_equal(path(&f, a, NULL), "/e/a");
	assert_string_equal(path(&f, b, NULL), "/e/a/b");
	fix_free(&f);
}

static void test_cap_and_hostile_names(void **state)
{
	struct fix f;
	uint32_t d, x;
	char name[40];

	(void)state;
	fix_init(&f, 3);
	mnt(&f, "/e", ROOT);
	d = create3(&f, 9, ROOT, "a/b\x1b[31m\xff", (const uint8_t *)"dir0000a");
	assert_string_equal(path(&f, d, NULL), "/e/a\\x2fb\\x1b[31m\\xff");
	x = create3(&f, 8, ROOT, "\xc3\xa9t\xc3\xa9", (const uint8_t *)"file000a");
	assert_string_equal(path(&f, x, NULL), "/e/\xc3\xa9t\xc3\xa9"); /* valid UTF-8 stays */
	/* the cap: three nodes; more handles are not tracked */
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "fhx%05u", i);
		assert_int_equal(read3(&f, (const uint8_t *)name), NFS_NAME_NONE);
	}
	assert_true(nfs_names_counters(f.m)->untracked >= 4);
	assert_true(nfs_names_mem(f.m) > 0);
	fix_free(&f);
}

/* --- NFSv4 --- */

static void compound(struct wb *w, uint32_t nops)
{
	putopaque(w, "", 0);
	put32(w, 0);
	put32(w, nops);
}

static void v4_res_hdr(struct wb *w, uint32_t status, uint32_t nops)
{
	put32(w, status);
	putopaque(w, "", 0);
	put32(w, nops);
}

static void res_ok(struct wb *w, uint32_t op)
{
	put32(w, op);
	put32(w, 0);
}

static void res_getfh(struct wb *w, const uint8_t *fh)
{
	res_ok(w, OP4_GETFH);
	putopaque(w, fh, 8);
}

static void test_v4_names(void **state)
{
	struct fix f;
	struct wb a = {.n = 0}, r = {.n = 0};
	static const uint8_t D4[8] = "d4fh0000", F[8] = "f4fh0000", E[8] = "expfh000";
	uint32_t d4, file;

	(void)state;
	fix_init(&f, 0);
	/* PUTROOTFH LOOKUP export LOOKUP d4 GETFH: a path walk from the root */
	compound(&a, 5);
	put32(&a, OP4_PUTROOTFH);
	put32(&a, OP4_LOOKUP);
	putopaque(&a, "export", 6);
	put32(&a, OP4_LOOKUP);
	putopaque(&a, "d4", 2);
	put32(&a, OP4_GETFH);
	put32(&a, OP4_GETATTR);
	put32(&a, 0);
	v4_res_hdr(&r, 0, 5);
	res_ok(&r, OP4_PUTROOTFH);
	res_ok(&r, OP4_LOOKUP);
	res_ok(&r, OP4_LOOKUP);
	res_getfh(&r, D4);
	res_ok(&r, OP4_GETATTR);
	put32(&r, 0);
	put32(&r, 0);
	exchange(&f, RPC_PROG_NFS, 4, 1, &a, &r);
	d4 = f.last;
	assert_string_equal(path(&f, d4, NULL), "/export/d4");
	/* PUTFH OPEN f GETFH: the node of the main op is the file opened */
	a.n = r.n = 0;
	compound(&a, 3);
	put32(&a, OP4_PUTFH);
	putopaque(&a, D4, 8);
	put32(&a, OP4_OPEN);
	put32(&a, 0); /* seqid */
	put32(&a, 2); /* share_access */
	put32(&a, 0); /* share_deny */
	put64(&a, 1); /* owner: clientid */
	putopaque(&a, "owner", 5);
	put32(&a, 1); /* OPEN4_CREATE */
	put32(&a, 0); /* UNCHECKED4 */
	put32(&a, 0); /* fattr4: empty bitmap */
	put32(&a, 0); /* attr_vals */
	put32(&a, 0); /* CLAIM_NULL */
	putopaque(&a, "f", 1);
	put32(&a, OP4_GETFH);
	v4_res_hdr(&r, 0, 3);
	res_ok(&r, OP4_PUTFH);
	res_ok(&r, OP4_OPEN);
	putzero(&r, 16 + 20 + 4); /* stateid, change_info, rflags */
	put32(&r, 0);             /* attrset */
	put32(&r, 0);             /* OPEN_DELEGATE_NONE */
	res_getfh(&r, F);
	exchange(&f, RPC_PROG_NFS, 4, 1, &a, &r);
	file = f.last;
	assert_string_equal(path(&f, file, NULL), "/export/d4/f");
	/* a failed LOOKUP: nothing named, nothing bound */
	a.n = r.n = 0;
	compound(&a, 3);
	put32(&a, OP4_PUTFH);
	putopaque(&a, D4, 8);
	put32(&a, OP4_LOOKUP);
	putopaque(&a, "nope", 4);
	put32(&a, OP4_GETFH);
	v4_res_hdr(&r, 2, 2);
	res_ok(&r, OP4_PUTFH);
	put32(&r, OP4_LOOKUP);
	put32(&r, 2);
	exchange(&f, RPC_PROG_NFS, 4, 1, &a, &r);
	assert_int_equal(f.last, d4);
	assert_int_equal(nfs_names_child(f.m, d4, "nope", 4), NFS_NAME_NONE);
	/* the export's handle seen later: the name-only node takes it, d4 stays under it */
	a.n = r.n = 0;
	compound(&a, 3);
	put32(&a, OP4_PUTROOTFH);
	put32(&a, OP4_LOOKUP);
	putopaque(&a, "export", 6);
	put32(&a, OP4_GETFH);
	v4_res_hdr(&r, 0, 3);
	res_ok(&r, OP4_PUTROOTFH);
	res_ok(&r, OP4_LOOKUP);
	res_getfh(&r, E);
	exchange(&f, RPC_PROG_NFS, 4, 1, &a, &r);
	assert_string_equal(path(&f, f.last, NULL), "/export");
	assert_string_equal(path(&f, file, NULL), "/export/d4/f");
	/* SAVEFH/RENAME: saved is the source directory, current the target */
	a.n = r.n = 0;
	compound(&a, 4);
	put32(&a, OP4_PUTFH);
	putopaque(&a, D4, 8);
	put32(&a, OP4_SAVEFH);
	put32(&a, OP4_PUTFH);
	putopaque(&a, E, 8);
	put32(&a, OP4_RENAME);
	putopaque(&a, "f", 1);
	putopaque(&a, "g", 1);
	v4_res_hdr(&r, 0, 4);
	res_ok(&r, OP4_PUTFH);
	res_ok(&r, OP4_SAVEFH);
	res_ok(&r, OP4_PUTFH);
	res_ok(&r, OP4_RENAME);
	putzero(&r, 40);
	exchange(&f, RPC_PROG_NFS, 4, 1, &a, &r);
	assert_string_equal(path(&f, file, NULL), "/export/g");
	fix_free(&f);
}

/* PUTROOTFH, LOOKUP of each name in path ("export/d1"), GETFH of the last: fh, fl bytes */
static uint32_t v4_walk(struct fix *f, const char *const *names, unsigned n, const uint8_t *fh,
                        unsigned fl)
{
	struct wb a = {.n = 0}, r = {.n = 0};

	compound(&a, n + 2);
	put32(&a, OP4_PUTROOTFH);
	for (unsigned i = 0; i < n; i++) {
		put32(&a, OP4_LOOKUP);
		putopaque(&a, names[i], (uint32_t)strlen(names[i]));
	}
	put32(&a, OP4_GETFH);
	v4_res_hdr(&r, 0, n + 2);
	res_ok(&r, OP4_PUTROOTFH);
	for (unsigned i = 0; i < n; i++)
		res_ok(&r, OP4_LOOKUP);
	res_ok(&r, OP4_GETFH);
	putopaque(&r, fh, fl);
	exchange(f, RPC_PROG_NFS, 4, 1, &a, &r);
	return f->last;
}

/* v3 and v4 traffic to one export (#28 item 4): nfs-ganesha's v3 handles are its v4 handles
 * padded with zeros to a multiple of 4; the v4 pseudo path's directory is found to be the
 * MOUNT's export root by its handle (before the MOUNT or after it), or by an entry that is the
 * same object under the same name; v4 names then land under the export's root, and the
 * root's v4 path is known. */
static void test_v3_v4_one_export(void **state)
{
	static const uint8_t R3[8] = "expfh01", D[8] = "d1fh0001", S[8] = "subfh001";
	static const char *const exp_[] = {"export"}, *const exp_d1[] = {"export", "d1"},
	                         *const exp_sub[] = {"export", "sub"};
	struct fix f;
	char p4[64];
	uint32_t d, x, root;

	(void)state;
	for (int how = 0; how < 3; how++) {
		fix_init(&f, 0);
		if (how == 2) /* the v4 walk first, the MOUNT after */
			v4_walk(&f, exp_, 1, R3, 7);
		mnt(&f, "/srv/export", R3); /* 7 bytes and a zero */
		root = nfs_names_mount_root(f.m);
		assert_int_not_equal(root, NFS_NAME_NONE);
		d = create3(&f, 9, R3, "d1", D);
		if (how == 1) {
			assert_int_not_equal(nfs_names_v4_path(f.m, root, p4, sizeof(p4)), 0);
			x = v4_walk(&f, exp_d1, 2, D, 8);
			assert_int_equal(x, d);
		} else if (how == 0) {
			assert_int_not_equal(nfs_names_v4_path(f.m, root, p4, sizeof(p4)), 0);
			x = v4_walk(&f, exp_, 1, R3, 7);
			assert_int_equal(x, root);
		}
		assert_string_equal(path(&f, d, NULL), "/srv/export/d1");
		assert_int_equal(nfs_names_v4_path(f.m, root, p4, sizeof(p4)), 0);
		assert_string_equal(p4, "export");
		x = v4_walk(&f, exp_sub, 2, S, 8);
		assert_string_equal(path(&f, x, NULL), "/srv/export/sub");
		assert_int_equal(nfs_names_child(f.m, root, "sub", 3), x);
		/* the v3 handle of the new directory is the same node */
		assert_int_equal(lookup3(&f, R3, "sub", S, 0), x);
		fix_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v3_names),
	    cmocka_unit_test(test_placeholder_named_later),
	    cmocka_unit_test(test_cycle_refused),
	    cmocka_unit_test(test_hard_links),
	    cmocka_unit_test(test_cap_and_hostile_names),
	    cmocka_unit_test(test_v4_names),
	    cmocka_unit_test(test_v3_v4_one_export),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
