/* SPDX-License-Identifier: MIT */
/* The floor for bench/capture-overhead.sh: biolatency's work, one histogram update per IO. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/*
 * What bcc's biolatency does (the issue time of each request in a hash, at the completion a
 * log2 histogram bucket incremented), with iotape's cheapest attachment (tp_btf) and the
 * same device filter as the bpf backend: the least per-IO tracing can cost on this kernel.
 */
const volatile __u32 dev_key = 0;   /* the disk's dev_t, major << 20 | minor */
const volatile __u32 bio_based = 0; /* zram: no requests, a bio from queue to completion */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 16);
	__type(key, __u64);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u64);
} hist SEC(".maps");

static __always_inline int ours(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;

	return disk && (((__u32)(disk->major) << 20) | (__u32)(disk->first_minor)) == dev_key;
}

static __always_inline void begin(__u64 key)
{
	__u64 t = bpf_ktime_get_ns();

	bpf_map_update_elem(&start, &key, &t, BPF_ANY);
}

static __always_inline void end(__u64 key)
{
	__u64 *t = bpf_map_lookup_elem(&start, &key), d, *c;
	__u32 slot = 0;

	if (!t)
		return;
	d = (bpf_ktime_get_ns() - *t) / 1000;
	bpf_map_delete_elem(&start, &key);
	while (d > 1 && slot < 63) {
		d >>= 1;
		slot++;
	}
	c = bpf_map_lookup_elem(&hist, &slot);
	if (c)
		*c += 1;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(issue, struct request *rq)
{
	if (!bio_based && ours(rq))
		begin((__u64)rq);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	if (!bio_based)
		end((__u64)rq);
	return 0;
}

static __always_inline int bio_ours(struct bio *bio)
{
	struct gendisk *disk = bio->bi_bdev->bd_disk;

	return bio_based && disk &&
	       (((__u32)disk->major << 20) | (__u32)disk->first_minor) == dev_key;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(bio_queue, struct bio *bio)
{
	if (bio_ours(bio))
		begin((__u64)bio);
	return 0;
}

SEC("tp_btf/block_bio_complete")
int BPF_PROG(bio_complete, struct request_queue *q, struct bio *bio)
{
	if (bio_based)
		end((__u64)bio);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
