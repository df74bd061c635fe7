// SPDX-License-Identifier: MIT
/*
 * --flamegraph: an interactive SVG flame graph, self-contained (its style
 * and script inline), in the manner of FlameGraph's flamegraph.pl but
 * written here: the root "all" at the bottom, each frame as wide as its
 * weight, children in name order; every frame a <g> with a <title> "name
 * (N samples, P%)", a coloured <rect> and a label cut to fit. It renders
 * without its script (an <img>, an image viewer); with it, frames zoom on
 * click and a search highlights matches (flamegraph_js.h). Frames under
 * 0.1 px at full width are left out, as flamegraph.pl does, so zooming
 * shows no more than they were.
 */
#include "report/output/flamegraph/flamegraph.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/output/flamegraph/flamegraph_js.h"
#include "report/output/frame_names.h"
#include "report/output/text_escape.h"

#define FG_WIDTH 1200
#define FG_PAD 10
#define FG_FRAME_H 16
#define FG_TOP 60
#define FG_FONT 12
#define FG_CHAR_W (FG_FONT * 0.59) /* an average character, for cutting labels */
#define FG_MIN_PX 0.1
#define FG_DETAILS_CHARS 130 /* between "Reset Zoom" and "Matched: ..." */

struct rgb {
	int r, g, b;
};

static void name_hash(const char *s, double *v1, double *v2)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	*v1 = (double)(h & 0xffff) / 65535.0;
	*v2 = (double)(h >> 16) / 65535.0;
}

/* The colour of a frame: one palette per kind, varied by name so that
 * neighbours differ. A new frame kind is one more case. */
static struct rgb kind_color(unsigned kind, const char *name)
{
	double a, b;
	name_hash(name, &a, &b);
	switch (kind) {
	case RP_FK_ROOT: /* khaki */
		return (struct rgb){ 200 + (int)(30 * a), 200 + (int)(30 * a), 150 + (int)(30 * b) };
	case RP_FK_KERNEL: /* blue-violet */
		return (struct rgb){ 140 + (int)(50 * a), 150 + (int)(45 * b), 215 + (int)(40 * a) };
	case RP_FK_INTERP: /* green */
		return (struct rgb){ 60 + (int)(60 * a), 180 + (int)(60 * b), 60 + (int)(50 * a) };
	case RP_FK_ERROR: /* grey */
		return (struct rgb){ 160 + (int)(50 * a), 160 + (int)(50 * a), 165 + (int)(50 * a) };
	case RP_FK_NATIVE:
	case RP_FK_INLINED:
	default: /* user code: red to yellow, like flamegraph.pl's "hot" */
		return (struct rgb){ 205 + (int)(50 * b), 40 + (int)(170 * a), (int)(55 * b) };
	}
}

struct fg {
	const struct rp_report *r;
	const struct rp_ftree *t;
	FILE *out;
	struct rp_buf b;
	unsigned col;       /* the column drawn: 0, or 1 (new) in a diff */
	bool diff;
	double base_scale;  /* diff: multiplies base weights (normalisation) */
	double max_delta;   /* diff: the largest |new - scaled base| drawn */
	uint64_t total, base_total;
	const char *unit;
	uint32_t *drawn;    /* node ids */
	uint64_t *x;        /* per node: start in weight units */
	size_t ndrawn;
	uint32_t depth;     /* the deepest drawn frame */
	bool kinds[RP_FK_COUNT];
};

static double px(const struct fg *g, uint64_t w)
{
	return g->total ? (double)w * (FG_WIDTH - 2 * FG_PAD) / (double)g->total : 0;
}

static double delta(const struct fg *g, const struct rp_fnode *n)
{
	return (double)n->w[1] - (double)n->w[0] * g->base_scale;
}

/* Red where a frame grew, blue where it shrank, paler the smaller the change. */
static struct rgb diff_color(const struct fg *g, const struct rp_fnode *n)
{
	double d = delta(g, n), v = g->max_delta > 0 ? fabs(d) / g->max_delta : 0;
	int fade = 235 - (int)(200 * v);
	if (d > 0)
		return (struct rgb){ 255, fade, fade };
	if (d < 0)
		return (struct rgb){ fade, fade, 255 };
	return (struct rgb){ 235, 235, 235 };
}

/* The frames to draw, with their start offsets: depth first from the root. */
static void layout(struct fg *g)
{
	const struct rp_ftree *t = g->t;
	uint32_t *stack = xmalloc(t->n * sizeof(*stack));
	size_t sp = 0;
	g->drawn = xmalloc(t->n * sizeof(*g->drawn));
	g->x = xcalloc(t->n, sizeof(*g->x));
	stack[sp++] = 0;
	while (sp) {
		uint32_t id = stack[--sp];
		const struct rp_fnode *n = &t->nodes[id];
		if (!n->w[g->col] || px(g, n->w[g->col]) < FG_MIN_PX)
			continue;
		g->drawn[g->ndrawn++] = id;
		g->kinds[n->kind < RP_FK_COUNT ? n->kind : RP_FK_NATIVE] = true;
		if (n->depth > g->depth)
			g->depth = n->depth;
		if (g->diff && fabs(delta(g, n)) > g->max_delta)
			g->max_delta = fabs(delta(g, n));
		uint64_t x = g->x[id];
		for (uint32_t c = n->first_child; c != RP_FT_NONE; c = t->nodes[c].next_sibling) {
			g->x[c] = x;
			x += t->nodes[c].w[g->col];
			stack[sp++] = c;
		}
	}
	free(stack);
}

static void pct(struct rp_buf *b, uint64_t w, uint64_t total)
{
	rp_buf_printf(b, "%.2f%%", total ? 100.0 * (double)w / (double)total : 0.0);
}

/* The label that fits in w px: all of it, or its start and "..", or nothing. */
static void label(struct rp_buf *b, const char *name, double w)
{
	double fit = floor((w - 6) / FG_CHAR_W);
	size_t chars = 0, len = strlen(name);
	for (size_t i = 0; i < len; chars++) {
		uint32_t cp;
		size_t n = rp_utf8_decode((const unsigned char *)name + i, len - i, &cp);
		i += n ? n : 1;
	}
	if ((double)chars <= fit) {
		rp_xml_text(b, name, SIZE_MAX);
	} else if (fit >= 3) {
		rp_xml_text(b, name, (size_t)fit - 2);
		rp_buf_adds(b, "..");
	}
}

static void write_frame(struct fg *g, uint32_t id)
{
	const struct rp_fnode *n = &g->t->nodes[id];
	const char *name = rp_str(&g->r->m->strs, n->name);
	uint64_t w = n->w[g->col];
	double x = FG_PAD + px(g, g->x[id]), wpx = px(g, w);
	double y = FG_TOP + (double)(g->depth - n->depth) * FG_FRAME_H;
	struct rgb c = g->diff ? diff_color(g, n) : kind_color(n->kind, name);
	struct rp_buf *b = &g->b;

	rp_buf_reset(b);
	rp_buf_printf(b, "<g data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\"><title>", g->x[id], w);
	rp_xml_text(b, name, SIZE_MAX);
	rp_buf_printf(b, " (%" PRIu64 " %s, ", w, g->unit);
	pct(b, w, g->total);
	if (g->diff) {
		rp_buf_printf(b, "; base %" PRIu64 " %s, ", n->w[0], g->unit);
		pct(b, n->w[0], g->base_total);
	}
	if (n->kind == RP_FK_INLINED)
		rp_buf_adds(b, "; inlined");
	rp_buf_printf(b, ")</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
			 "rx=\"2\" fill=\"rgb(%d,%d,%d)\"/><text x=\"%.1f\" y=\"%.1f\">",
		      x, y, wpx > 0.6 ? wpx - 0.5 : 0.1, FG_FRAME_H - 1, c.r, c.g, c.b, x + 3,
		      y + FG_FRAME_H - 4.5);
	label(b, name, wpx);
	rp_buf_adds(b, "</text></g>\n");
	fwrite(b->p, 1, b->len, g->out);
}

static void legend_item(struct fg *g, double *x, double y, struct rgb c, const char *what)
{
	fprintf(g->out,
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"rgb(%d,%d,%d)\"/>"
		"<text class=\"small\" x=\"%.0f\" y=\"%.0f\">%s</text>\n",
		*x, y - 9, c.r, c.g, c.b, *x + 13, y, what);
	*x += 13 + FG_CHAR_W * 0.9 * (double)strlen(what) + 12;
}

static void write_legend(struct fg *g, double y)
{
	double x = FG_PAD;
	if (g->diff) {
		legend_item(g, &x, y, (struct rgb){ 255, 80, 80 }, "grew");
		legend_item(g, &x, y, (struct rgb){ 80, 80, 255 }, "shrank");
		if (g->r->o->diff_normalize)
			fprintf(g->out, "<text class=\"small\" x=\"%.0f\" y=\"%.0f\">(base "
					"normalised to the new total)</text>\n", x, y);
		return;
	}
	/* the user colour also stands for inlined frames */
	static const unsigned order[] = { RP_FK_NATIVE, RP_FK_KERNEL, RP_FK_INTERP, RP_FK_ERROR };
	static const char *const what[] = { "user", "kernel", "interpreter", "error" };
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (g->kinds[order[i]] || (order[i] == RP_FK_NATIVE && g->kinds[RP_FK_INLINED]))
			legend_item(g, &x, y, kind_color(order[i], what[i]), what[i]);
}

static const char style[] =
	"text { font-family: Verdana, Helvetica, sans-serif; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; text-anchor: middle; }\n"
	"#details { text-anchor: middle; fill: #333; }\n"
	"text.small { font-size: 11px; fill: #333; }\n"
	".btn { cursor: pointer; fill: #225; } .btn:hover { text-decoration: underline; }\n"
	".hide { display: none; }\n"
	"#search, #matched { text-anchor: end; }\n"
	"#frames g { cursor: pointer; } #frames text { pointer-events: none; }\n"
	"#frames g:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	"#frames g.parent { opacity: 0.5; }\n";

static void write_svg(struct fg *g, const char *subtitle)
{
	FILE *out = g->out;
	int base_y = FG_TOP + (int)g->depth * FG_FRAME_H;
	int height = base_y + FG_FRAME_H + 10;
	const char *title = g->diff ? "Differential Flame Graph" : "Flame Graph";

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		     "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		     "height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"fgInit()\">\n",
		FG_WIDTH, height, FG_WIDTH, height);
	fprintf(out, "<!-- a flame graph written by treport -->\n<defs><linearGradient id=\"bg\" "
		     "x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\"><stop offset=\"5%%\" stop-color=\"#f4f4f4\"/>"
		     "<stop offset=\"95%%\" stop-color=\"#e8e8d8\"/></linearGradient></defs>\n");
	fprintf(out, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", style);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", rp_flamegraph_js);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#bg)\"/>\n",
		FG_WIDTH, height);
	if (!g->total)
		fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">no samples</text>\n",
			FG_WIDTH / 2, base_y + 12);
	fprintf(out, "<g id=\"frames\" data-total=\"%" PRIu64 "\" data-base-y=\"%d\" "
		     "data-frame-height=\"%d\" data-char-width=\"%.2f\" data-pad=\"%d\">\n",
		g->total ? g->total : 1, base_y, FG_FRAME_H, FG_CHAR_W, FG_PAD);
	for (size_t i = 0; i < g->ndrawn; i++)
		write_frame(g, g->drawn[i]);
	fprintf(out, "</g>\n");

	/* drawn last, over the frames: the script keeps it in view */
	fprintf(out, "<g id=\"hud\"><rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		     "fill=\"#f4f4f4\" opacity=\"0.92\"/>\n", FG_WIDTH, FG_TOP - 8);
	write_legend(g, 24);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"24\">%s</text>\n", FG_WIDTH / 2, title);
	fprintf(out, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\">Search</text>\n",
		FG_WIDTH - FG_PAD);
	fprintf(out, "<text id=\"reset\" class=\"btn hide\" x=\"%d\" y=\"46\">Reset Zoom</text>\n",
		FG_PAD);
	/* the subtitle, replaced by a frame's title while the mouse is on it */
	rp_buf_reset(&g->b);
	if (subtitle && subtitle[0])
		rp_xml_text(&g->b, subtitle, FG_DETAILS_CHARS);
	else
		rp_buf_adds(&g->b, " ");
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"46\">%s</text>\n", FG_WIDTH / 2, g->b.p);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"46\"> </text>\n", FG_WIDTH - FG_PAD);
	fprintf(out, "</g>\n</svg>\n");
}
int rp_flamegraph_write(const struct rp_report *r, const struct rp_ftree *t,
			const char *subtitle, FILE *out)
{
	struct fg g = { .r = r, .t = t, .out = out, .unit = rp_weight_unit(r), .base_scale = 1 };
	g.diff = t->ncols == 2;
	g.col = g.diff ? 1 : 0;
	g.total = t->nodes[0].w[g.col];
	g.base_total = t->nodes[0].w[0];
	if (g.diff && r->o->diff_normalize && g.base_total)
		g.base_scale = (double)g.total / (double)g.base_total;
	layout(&g);
	write_svg(&g, subtitle);
	free(g.drawn);
	free(g.x);
	rp_buf_free(&g.b);
	return 0;
}

int rp_output_flamegraph(const struct rp_report *r, FILE *out)
{
	struct rp_ftree t;
	struct rp_buf sub = { 0 };
	const struct rp_model *m = r->m;
	rp_ftree_build(r, &t, 1);
	const char *cmd = m->nrecs == 1 ? rp_model_meta(m, 0, "command") : NULL;
	if (cmd)
		rp_buf_adds(&sub, cmd);
	else if (m->nrecs == 1)
		rp_buf_adds(&sub, rp_str(&m->strs, m->recs[0].path));
	else
		rp_buf_printf(&sub, "%zu recordings", m->nrecs);
	rp_buf_printf(&sub, ": %" PRIu64 " %s", t.nodes[0].w[0], rp_weight_unit(r));
	int rc = rp_flamegraph_write(r, &t, sub.p, out);
	rp_buf_free(&sub);
	rp_ftree_free(&t);
	return rc;
}
