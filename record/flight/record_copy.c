// SPDX-License-Identifier: MIT
#include <errno.h>
#include "record/flight/record_copy.h"

int trec_record_copy(struct trec_writer *w, const struct trec_record *rec)
{
	switch (rec->type) {
	case TREC_REC_META:
		return trec_write_meta(w, &rec->u.meta);
	case TREC_REC_SAMPLE:
		return trec_write_sample(w, &rec->u.sample);
	case TREC_REC_MAPPINGS:
		return trec_write_mappings(w, &rec->u.mappings);
	case TREC_REC_PID_EVENT:
		return trec_write_pid_event(w, &rec->u.pid_event);
	case TREC_REC_FILE:
		return trec_write_file(w, &rec->u.file);
	case TREC_REC_KSYMS:
		return trec_write_ksyms(w, &rec->u.ksyms);
	case TREC_REC_METRICS:
		return trec_write_metrics(w, &rec->u.metrics);
	case TREC_REC_SUMMARY:
		return trec_write_summary(w, &rec->u.summary);
	case TREC_REC_SYMTAB:
	case TREC_REC_PYCODE:
	case TREC_REC_BLOB:
	case TREC_REC_INTERP_CODE:
		return trec_write_blob(w, rec->type, &rec->u.blob);
	case TREC_REC_JITSYMS:
		return trec_write_jitsyms(w, &rec->u.jitsyms);
	}
	return -EINVAL;
}
