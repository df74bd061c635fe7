// SPDX-License-Identifier: MIT
#include "record/bpf_loader.h"
#include "record/io/metrics.h"
#include "record/io/output.h"

static const char *const bpf_names[] = {
#define TREC_X(name, desc) #name,
	TREC_METRIC_LIST(TREC_X)
#undef TREC_X
};

static const char *const trecord_names[] = {
#define TREC_X(name, desc) #name,
	TRECORD_METRIC_LIST(TREC_X)
#undef TREC_X
};

int trec_metrics_read_bpf(const struct trec_bpf_loader *l, int fd, uint64_t *bpf)
{
	if (fd < 0)
		return fd;
	return trec_bpf_sum_percpu(l, fd, bpf, TREC_METRIC_COUNT);
}

int trec_metrics_write_to(struct trec_writer *w, const uint64_t *bpf,
			  const struct trecord_counters *c, uint64_t time_ns)
{
	struct trec_metric_value v[TREC_METRIC_COUNT + TRECORD_METRIC_COUNT];
	struct trec_metrics m = { .time_ns = time_ns, .values = v };

	for (uint32_t i = 0; i < TREC_METRIC_COUNT; i++)
		v[m.num_values++] = (struct trec_metric_value){ i, bpf_names[i], bpf[i] };
	for (uint32_t i = 0; i < TRECORD_METRIC_COUNT; i++)
		v[m.num_values++] = (struct trec_metric_value){
			TRECORD_METRIC_BASE + i, trecord_names[i],
			atomic_load_explicit(&c->v[i], memory_order_relaxed),
		};
	return trec_write_metrics(w, &m);
}

int trec_metrics_write(struct trec_output *o, const uint64_t *bpf,
		       const struct trecord_counters *c, uint64_t time_ns)
{
	struct trec_writer *w = trec_output_lock(o);

	if (!w)
		return trec_output_error(o);
	return trec_output_unlock(o, trec_metrics_write_to(w, bpf, c, time_ns));
}
