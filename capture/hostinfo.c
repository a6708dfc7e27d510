/* SPDX-License-Identifier: MIT */
/* The host a run was captured on (uname, os-release) and wall/trace clock pairs. */
#include "capture/cap_int.h"

#include <ifaddrs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "formats/netaddr.h"

static int64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The trace clock is "mono" (CLOCK_MONOTONIC), packet timestamps are CLOCK_REALTIME. Read
 * REALTIME, MONOTONIC, REALTIME several times and keep the tightest bracket: the offset
 * between the clocks is then known to within half its width (typically well under 1 us).
 */
void cap_clock_pair_read(struct cap_clock_pair *p)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < 8; i++) {
		int64_t r0 = ns_of(CLOCK_REALTIME);
		int64_t m = ns_of(CLOCK_MONOTONIC);
		int64_t r1 = ns_of(CLOCK_REALTIME);

		if (r1 - r0 < best) {
			best = r1 - r0;
			p->real_ns = r0 + (r1 - r0) / 2;
			p->mono_ns = m;
			p->uncertainty_ns = (r1 - r0 + 1) / 2;
		}
	}
}

json_t *cap_clock_pair_json(const struct cap_clock_pair *p)
{
	char iso[64];
	time_t sec = (time_t)(p->real_ns / 1000000000);
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(iso + strftime(iso, 32, "%Y-%m-%dT%H:%M:%S", &tm), 32, ".%09lldZ",
	         (long long)(p->real_ns % 1000000000));
	return json_pack("{s:s, s:I, s:I, s:I}", "wall", iso, "realtime_ns", (json_int_t)p->real_ns,
	                 "trace_ns", (json_int_t)p->mono_ns, "uncertainty_ns",
	                 (json_int_t)p->uncertainty_ns);
}

json_t *cap_iface_addresses_json(const char *iface)
{
	struct ifaddrs *all, *a;
	json_t *list = json_array();

	if (!list || getifaddrs(&all))
		return list;
	for (a = all; a; a = a->ifa_next) {
		char buf[NET_ENDPOINT_STRLEN];
		struct net_addr addr;

		if (strcmp(iface, "any") && strcmp(iface, a->ifa_name))
			continue;
		if (!net_addr_from_sockaddr(a->ifa_addr, &addr))
			json_array_append_new(list,
			                      json_string(net_addr_str(&addr, buf, sizeof(buf))));
	}
	freeifaddrs(all);
	return list;
}
