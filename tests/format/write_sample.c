// SPDX-License-Identifier: MIT
/*
 * Writes the format test fixture (every record type) with libtrecformat,
 * and, separately, the values it was given as JSON, for the independent
 * Python reader to check against. The JSON comes from the input structs,
 * never from reading the file back.
 *
 *   write_sample OUT.tr EXPECTED.json [CHUNK_BYTES]
 */
#include <errno.h>
#include <inttypes.h>

#include "format_fixture.h"

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* comm is char[16] and may lack a NUL: the format keeps 15 bytes. */
static void json_comm(FILE *f, const char *comm)
{
	char c[16];

	memcpy(c, comm, 15);
	c[15] = 0;
	json_str(f, c);
}

static void json_hex(FILE *f, const uint8_t *p, uint32_t n)
{
	fputc('"', f);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

#define U(name, v) fprintf(f, "\"%s\": %" PRIu64 ", ", name, (uint64_t)(v))
#define I(name, v) fprintf(f, "\"%s\": %" PRId64 ", ", name, (int64_t)(v))
#define S(name, v) (fprintf(f, "\"%s\": ", name), json_str(f, v), fputs(", ", f))

static void json_frames(FILE *f, const char *name, const struct trec_rec_frame *fr, uint32_t n)
{
	fprintf(f, "\"%s\": [", name);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s{\"kind\": %u, \"flags\": %u, \"file_id\": %" PRIu64 ", \"addr\": %" PRIu64 "}",
			i ? ", " : "", fr[i].kind, fr[i].flags, fr[i].file_id, fr[i].addr);
	fputs("], ", f);
}

static void json_record(FILE *f, const struct trec_record *r)
{
	fputc('{', f);
	switch (r->type) {
	case TREC_REC_META:
		fputs("\"entries\": [", f);
		for (uint32_t i = 0; i < r->u.meta.num_entries; i++) {
			fputs(i ? ", [" : "[", f);
			json_str(f, r->u.meta.entries[i].key);
			fputs(", ", f);
			json_str(f, r->u.meta.entries[i].value);
			fputc(']', f);
		}
		fputs("], ", f);
		break;
	case TREC_REC_SAMPLE: {
		const struct trec_sample *s = &r->u.sample;

		U("time_ns", s->time_ns); U("cpu", s->cpu); U("flags", s->flags);
		U("weight", s->weight ? s->weight : 1); U("offcpu_ns", s->offcpu_ns);
		U("pid", s->pid); U("tid", s->tid);
		fputs("\"comm\": ", f); json_comm(f, s->comm); fputs(", ", f);
		json_frames(f, "kernel_frames", s->kernel_frames, s->num_kernel_frames);
		json_frames(f, "user_frames", s->user_frames, s->num_user_frames);
		break;
	}
	case TREC_REC_MAPPINGS:
		U("time_ns", r->u.mappings.time_ns); U("pid", r->u.mappings.pid);
		fputs("\"mappings\": [", f);
		for (uint32_t i = 0; i < r->u.mappings.num_mappings; i++) {
			const struct trec_mapping *m = &r->u.mappings.mappings[i];

			fputs(i ? ", {" : "{", f);
			U("start", m->start); U("end", m->end); U("file_offset", m->file_offset);
			U("file_id", m->file_id); U("bias", m->bias); U("inode", m->inode);
			U("mtime_ns", m->mtime_ns); U("dev_major", m->dev_major);
			U("dev_minor", m->dev_minor); U("prot", m->prot); S("path", m->path);
			fputs("\"build_id\": ", f); json_hex(f, m->build_id, m->build_id_len);
			fputc('}', f);
		}
		fputs("], ", f);
		break;
	case TREC_REC_PID_EVENT: {
		const struct trec_pid_event *e = &r->u.pid_event;

		U("time_ns", e->time_ns); U("kind", e->kind); U("pid", e->pid); U("tid", e->tid);
		U("parent_pid", e->parent_pid); I("exit_code", e->exit_code);
		fputs("\"comm\": ", f); json_comm(f, e->comm); fputs(", ", f);
		S("filename", e->filename);
		break;
	}
	case TREC_REC_FILE: {
		const struct trec_file_info *x = &r->u.file;

		U("file_id", x->file_id); U("size", x->size); U("inode", x->inode);
		U("mtime_ns", x->mtime_ns); U("dev_major", x->dev_major); U("dev_minor", x->dev_minor);
		S("path", x->path); S("debuglink", x->debuglink);
		fputs("\"build_id\": ", f); json_hex(f, x->build_id, x->build_id_len); fputs(", ", f);
		break;
	}
	case TREC_REC_KSYMS:
		U("time_ns", r->u.ksyms.time_ns);
		fputs("\"syms\": [", f);
		for (uint32_t i = 0; i < r->u.ksyms.num_syms; i++) {
			const struct trec_ksym *k = &r->u.ksyms.syms[i];

			fprintf(f, "%s{\"addr\": %" PRIu64 ", \"type\": \"%c\", ", i ? ", " : "",
				k->addr, k->type);
			S("name", k->name);
			fputs("\"module\": ", f); json_str(f, k->module); fputc('}', f);
		}
		fputs("], ", f);
		break;
	case TREC_REC_METRICS:
		U("time_ns", r->u.metrics.time_ns);
		fputs("\"values\": [", f);
		for (uint32_t i = 0; i < r->u.metrics.num_values; i++) {
			const struct trec_metric_value *v = &r->u.metrics.values[i];

			fputs(i ? ", {" : "{", f);
			U("id", v->id); S("name", v->name);
			fprintf(f, "\"value\": %" PRIu64 "}", v->value);
		}
		fputs("], ", f);
		break;
	case TREC_REC_SUMMARY: {
		const struct trec_summary *s = &r->u.summary;

		U("start_ns", s->start_ns); U("end_ns", s->end_ns); U("samples", s->samples);
		U("lost", s->lost); I("exit_status", s->exit_status); U("flags", s->flags);
		break;
	}
	case TREC_REC_JITSYMS: {
		const struct trec_jitsyms *j = &r->u.jitsyms;

		U("time_ns", j->time_ns); U("pid", j->pid); U("source", j->source);
		U("flags", j->flags); U("bad", j->bad); S("path", j->path);
		fputs("\"files\": [", f);
		for (uint32_t i = 0; i < j->num_files; i++) {
			fputs(i ? ", " : "", f);
			json_str(f, j->files[i]);
		}
		fputs("], \"entries\": [", f);
		for (uint32_t i = 0; i < j->num_entries; i++) {
			const struct trec_jit_entry *e = &j->entries[i];

			fputs(i ? ", {" : "{", f);
			U("start", e->start); U("size", e->size); U("load_ns", e->load_ns);
			U("end_ns", e->end_ns); U("code_index", e->code_index); S("name", e->name);
			fputs("\"lines\": [", f);
			for (uint32_t k = 0; k < e->num_lines; k++) {
				const struct trec_jit_line *l = &j->lines[e->first_line + k];

				fprintf(f, "%s{\"addr\": %" PRIu64 ", \"line\": %u, \"file\": %u}",
					k ? ", " : "", l->addr, l->line, l->file);
			}
			fputs("]}", f);
		}
		fputs("], ", f);
		break;
	}
	default:
		U("file_id", r->u.blob.file_id); U("subtype", r->u.blob.subtype);
		fputs("\"data\": ", f); json_hex(f, r->u.blob.data, r->u.blob.len); fputs(", ", f);
		break;
	}
	fprintf(f, "\"type\": \"%s\"}", trec_record_type_name(r->type));
}

int main(int argc, char **argv)
{
	struct trec_writer_opts o = { 0 };
	struct trec_header h;
	struct trec_writer *w;
	FILE *f;
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: %s OUT.tr EXPECTED.json [CHUNK_BYTES]\n", argv[0]);
		return 2;
	}
	if (argc > 3)
		o.chunk_bytes = strtoul(argv[3], NULL, 0);
	fx_init();
	trec_header_init_host(&h);
	h.flags = 0x11;
	w = trec_writer_open(argv[1], &h, &o, 1);
	if (!w) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = fx_write(w, 0, fx_nrecs);
	if (trec_writer_close(w) || err) {
		fprintf(stderr, "write failed\n");
		return 1;
	}

	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "{\"header\": {\"version_major\": %u, \"version_minor\": %u, \"flags\": %u, "
		"\"page_size\": %u, \"creation_time_ns\": %" PRIu64 ", \"clock_id\": %u, ",
		TREC_FORMAT_VERSION_MAJOR, TREC_FORMAT_VERSION_MINOR, h.flags, h.page_size,
		h.creation_time_ns, h.clock_id);
	S("kernel_release", h.kernel_release);
	S("machine", h.machine);
	fputs("\"hostname\": ", f);
	json_str(f, h.hostname);
	fputs("},\n\"records\": [\n", f);
	for (unsigned i = 0; i < fx_nrecs; i++) {
		json_record(f, &fx_recs[i]);
		fputs(i + 1 < fx_nrecs ? ",\n" : "\n", f);
	}
	fputs("]}\n", f);
	return fclose(f) ? 1 : 0;
}
