/* SPDX-License-Identifier: MIT */
/* Pieces every section of the report uses: run colours and labels, table cells, charts. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xml.h"
#include "report/report_int.h"

const char *run_color(size_t i)
{
	return pal_run_hex(i);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	if (s && !s[1]) {
		/* "dir/" */
		while (s > p && s[-1] != '/')
			s--;
		return s;
	}
	return s ? s + 1 : p;
}

const char *run_label(const struct report_input *in)
{
	return in->label ? in->label : base_name(in->path);
}

void td_num(FILE *f, double v, int dec)
{
	if (isnan(v))
		fputs("<td class=\"n\">-</td>", f);
	else
		fprintf(f, "<td class=\"n\">%.*f</td>", dec, v);
}

void td_text(FILE *f, const char *s)
{
	fputs("<td>", f);
	xml_puts(f, s);
	fputs("</td>", f);
}

void swatch(FILE *f, const char *color)
{
	fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>", color);
}

/* Render one chart: inline in the page, and as its own file when --svg asked for it. */
void emit_chart(struct emit *em, const struct svg_chart *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (em->err)
		return;
	if (!em->o->svg_out) {
		if (svg_chart_write(em->f, c, false))
			em->err = -EIO;
		return;
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		em->err = -ENOMEM;
		return;
	}
	svg_chart_write(m, c, true);
	if (fclose(m)) {
		free(buf);
		em->err = -ENOMEM;
		return;
	}
	/* inline copy without the XML declaration (first line) */
	fputs(strchr(buf, '\n') + 1, em->f);
	{
		char name[160];
		int ret;

		snprintf(name, sizeof(name), "%s.svg", c->id);
		ret = em->o->svg_out(em->o->svg_ctx, name, buf, len);
		if (ret)
			em->err = ret;
	}
	free(buf);
}

/* The page style, shared by every page the report writes. */
const char report_css[] =
    "body{font-family:sans-serif;margin:16px 24px;color:#222;max-width:1200px}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;margin-top:28px}"
    "h3{font-size:15px}table{border-collapse:collapse;font-size:12px;margin:6px 0}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums}th{background:#f2f2f2}tr.fail td{background:#fdd}"
    ".sw{display:inline-block;width:10px;height:10px;margin-right:4px}"
    ".note{color:#555;font-size:12px}svg{display:block;margin:4px 0}"
    "details{margin:4px 0}summary{cursor:pointer}";
