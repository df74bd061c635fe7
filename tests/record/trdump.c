// SPDX-License-Identifier: MIT
/*
 * Test-only: prints every record of a .tr file as one line of text, so the
 * record tests can check recordings with awk before treport exists.
 *
 *   S time pid tid cpu comm nkernel nuser user:kind/flags/file_id/addr...
 *   M time pid n start-end/offset/file_id/bias/path ...
 *   E time kind pid tid parent exit comm filename
 *   F file_id size build_id_len path debuglink
 *   K time nsyms, then KS addr type name module per symbol
 *   X time id=name=value ...
 *   Y key=value ... (META)
 *   Z start end samples lost exit_status (SUMMARY)
 *   B type file_id subtype len
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "trec_format.h"

static void print_sample(const struct trec_sample *s)
{
	printf("S %" PRIu64 " %u %u %u %s %u %u", s->time_ns, s->pid, s->tid, s->cpu,
	       s->comm[0] ? s->comm : "-", s->num_kernel_frames, s->num_user_frames);
	for (uint32_t i = 0; i < s->num_user_frames; i++) {
		const struct trec_rec_frame *f = &s->user_frames[i];

		printf(" %u/%u/%" PRIx64 "/%" PRIx64, f->kind, f->flags, f->file_id, f->addr);
	}
	for (uint32_t i = 0; i < s->num_kernel_frames; i++)
		printf(" k/%" PRIx64, s->kernel_frames[i].addr);
	putchar('\n');
}

int main(int argc, char **argv)
{
	struct trec_reader *r;
	struct trec_record rec;
	char msg[256];
	int err, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: trdump FILE\n");
		return 2;
	}
	r = trec_reader_open(argv[1], NULL, &err, msg, sizeof(msg));
	if (!r) {
		fprintf(stderr, "trdump: %s\n", msg);
		return 1;
	}
	while ((rc = trec_reader_next(r, &rec)) == 1) {
		switch (rec.type) {
		case TREC_REC_SAMPLE:
			print_sample(&rec.u.sample);
			break;
		case TREC_REC_MAPPINGS: {
			const struct trec_mapping_snapshot *m = &rec.u.mappings;

			printf("M %" PRIu64 " %u %u", m->time_ns, m->pid, m->num_mappings);
			for (uint32_t i = 0; i < m->num_mappings; i++) {
				const struct trec_mapping *x = &m->mappings[i];

				printf(" %" PRIx64 "-%" PRIx64 "/%" PRIx64 "/%" PRIx64 "/%" PRIx64 "/%s",
				       x->start, x->end, x->file_offset, x->file_id, x->bias,
				       x->path[0] ? x->path : "-");
			}
			putchar('\n');
			break;
		}
		case TREC_REC_PID_EVENT: {
			const struct trec_pid_event *e = &rec.u.pid_event;

			printf("E %" PRIu64 " %u %u %u %u %d %s %s\n", e->time_ns, e->kind, e->pid,
			       e->tid, e->parent_pid, e->exit_code, e->comm[0] ? e->comm : "-",
			       e->filename && e->filename[0] ? e->filename : "-");
			break;
		}
		case TREC_REC_FILE: {
			const struct trec_file_info *f = &rec.u.file;

			printf("F %" PRIx64 " %" PRIu64 " %u %s %s\n", f->file_id, f->size,
			       f->build_id_len, f->path, f->debuglink && f->debuglink[0] ? f->debuglink : "-");
			break;
		}
		case TREC_REC_KSYMS:
			printf("K %" PRIu64 " %u\n", rec.u.ksyms.time_ns, rec.u.ksyms.num_syms);
			for (uint32_t i = 0; i < rec.u.ksyms.num_syms; i++) {
				const struct trec_ksym *k = &rec.u.ksyms.syms[i];

				printf("KS %" PRIx64 " %c %s %s\n", k->addr, k->type, k->name,
				       k->module[0] ? k->module : "-");
			}
			break;
		case TREC_REC_METRICS:
			printf("X %" PRIu64, rec.u.metrics.time_ns);
			for (uint32_t i = 0; i < rec.u.metrics.num_values; i++)
				printf(" %u=%s=%" PRIu64, rec.u.metrics.values[i].id,
				       rec.u.metrics.values[i].name, rec.u.metrics.values[i].value);
			putchar('\n');
			break;
		case TREC_REC_META:
			printf("Y");
			for (uint32_t i = 0; i < rec.u.meta.num_entries; i++)
				printf(" %s=%s", rec.u.meta.entries[i].key, rec.u.meta.entries[i].value);
			putchar('\n');
			break;
		case TREC_REC_SUMMARY:
			printf("Z %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n",
			       rec.u.summary.start_ns, rec.u.summary.end_ns, rec.u.summary.samples,
			       rec.u.summary.lost, rec.u.summary.exit_status);
			break;
		case TREC_REC_JITSYMS: {
			const struct trec_jitsyms *j = &rec.u.jitsyms;

			printf("J %" PRIu64 " %u %u %u %u %u %s\n", j->time_ns, j->pid, j->source,
			       j->flags, j->bad, j->num_entries, j->path);
			for (uint32_t i = 0; i < j->num_entries; i++) {
				const struct trec_jit_entry *e = &j->entries[i];

				printf("JE %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64
				       " %u %s\n", e->start, e->size, e->load_ns, e->end_ns,
				       e->code_index, e->num_lines, e->name);
			}
			break;
		}
		default:
			printf("B %d %" PRIx64 " %u %u\n", rec.type, rec.u.blob.file_id,
			       rec.u.blob.subtype, rec.u.blob.len);
			break;
		}
	}
	if (rc < 0) {
		fprintf(stderr, "trdump: %s\n", trec_reader_error(r));
		trec_reader_close(r);
		return 1;
	}
	trec_reader_close(r);
	return 0;
}
