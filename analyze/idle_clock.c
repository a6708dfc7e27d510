/* SPDX-License-Identifier: MIT */
/* Below every stage of the gaps' explanation: hosts' clocks, flow tables, local addresses. */
#include "analyze/idle_explain.h"

#include <stdlib.h>
#include <string.h>

#include "formats/manifest.h"

bool ie_clock_to_real(const struct ie_clock *c, uint64_t t, int64_t *r)
{
	if (c->m) {
		*r = manifest_trace_to_real(c->m, (int64_t)t) - c->real_off_ns;
		return true;
	}
	if (c->have_wall) {
		*r = (int64_t)t + c->wall_ns - c->real_off_ns;
		return true;
	}
	return false;
}

bool ie_clock_from_real(const struct ie_clock *c, int64_t r, uint64_t *t)
{
	int64_t v;

	r += c->real_off_ns;
	if (c->m)
		v = manifest_real_to_trace(c->m, r);
	else if (c->have_wall)
		v = r - c->wall_ns;
	else
		return false;
	*t = v > 0 ? (uint64_t)v : 0;
	return true;
}

bool ie_real_to_common(const struct idle_explain *x, int64_t real, uint64_t *c)
{
	return x->nhosts && ie_clock_from_real(&x->host[0].clk, real, c);
}

bool idle_explain_to_common(const struct idle_explain *x, unsigned h, uint64_t t, uint64_t *c)
{
	int64_t r;

	if (!h) {
		*c = t;
		return true;
	}
	return h < x->nhosts && ie_clock_to_real(&x->host[h].clk, t, &r) &&
	       ie_real_to_common(x, r, c);
}

void ie_flows_free(struct ie_flows *t)
{
	free(t->f);
	memset(t, 0, sizeof(*t));
}

int ie_is_local(const struct ie_host *hs, const struct net_addr *a)
{
	for (unsigned i = 0; i < hs->nlocal; i++)
		if (net_addr_eq(&hs->local[i], a))
			return 1;
	return 0;
}
