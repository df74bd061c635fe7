/* SPDX-License-Identifier: MIT */
/*
 * libtrecformat: the one reader and writer of .tr recordings, linked by
 * trecord, treport, the tests and the fuzz target. FORMAT.md is the
 * byte-level specification of what this code writes.
 *
 * Ownership: the writer copies everything it is given. Records returned by
 * the reader point into reader-owned memory that stays valid until the next
 * call to trec_reader_next() or trec_reader_close().
 *
 * Errors: functions return 0 or a negative errno value; the reader also
 * keeps a message naming the file offset (trec_reader_error()).
 */
#ifndef TREC_FORMAT_H
#define TREC_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TREC_FORMAT_VERSION_MAJOR 1
#define TREC_FORMAT_VERSION_MINOR 2 /* 1.1: JITSYMS; 1.2: INTERP_CODE, off-CPU samples, SUMMARY stop cause 6 */

/* ---- records ----------------------------------------------------------- */

enum trec_record_type {
	TREC_REC_META = 1,        /* recording facts: host, command line, freq */
	TREC_REC_SAMPLE = 2,      /* one sampled stack */
	TREC_REC_MAPPINGS = 3,    /* snapshot of a pid's executable mappings */
	TREC_REC_PID_EVENT = 4,   /* fork, exec, exit, comm change, mmap */
	TREC_REC_FILE = 5,        /* file id -> path, build-id, size */
	TREC_REC_KSYMS = 6,       /* kernel symbol snapshot */
	TREC_REC_METRICS = 7,     /* BPF and trecord counters */
	TREC_REC_SUMMARY = 8,     /* end of recording */
	TREC_REC_SYMTAB = 9,      /* embedded symbols of a file (issue 6) */
	TREC_REC_PYCODE = 10,     /* python code object description (issue 8) */
	TREC_REC_BLOB = 11,       /* an opaque embedded byte blob keyed by file id */
	TREC_REC_JITSYMS = 12,    /* names of a pid's JIT code (perf map, jitdump); 1.1 */
	/* 13: reserved (off-CPU) */
	TREC_REC_INTERP_CODE = 14, /* an interpreter's code description (blob); 1.2 */
};

/* A user or kernel frame, as stored. Values as in bpf/trec_types.h. */
struct trec_rec_frame {
	uint64_t file_id;      /* 0 for kernel frames */
	uint64_t addr;         /* ELF vaddr, kernel address, or error code */
	uint8_t kind;          /* enum trec_frame_kind */
	uint8_t flags;         /* enum trec_frame_flags */
};

/* SAMPLE flags (the values of bpf/trec_types.h's enum trec_trace_flags). */
#define TREC_SAMPLE_F_KERNEL_MODE 1
#define TREC_SAMPLE_F_OFFCPU 2

struct trec_sample {
	uint64_t time_ns; /* CLOCK_MONOTONIC, same clock as pid events */
	uint32_t pid, tid, cpu;
	uint32_t flags;   /* enum trec_trace_flags */
	uint64_t weight;  /* number of samples this record stands for (>= 1; 0 is written as 1) */
	/* flags & TREC_SAMPLE_F_OFFCPU: the thread blocked at time_ns for this
	 * long (event offcpu-time); 0 for cpu-clock samples. Since 1.2. */
	uint64_t offcpu_ns;
	char comm[16];    /* NUL-terminated; at most 15 bytes are stored */
	/* Leaf first (innermost frame at index 0), like perf callchains. */
	uint32_t num_kernel_frames;
	const struct trec_rec_frame *kernel_frames;
	uint32_t num_user_frames;
	const struct trec_rec_frame *user_frames;
};

struct trec_mapping {
	uint64_t start, end;   /* runtime addresses, end exclusive */
	uint64_t file_offset;  /* pgoff from /proc/PID/maps */
	uint64_t file_id;      /* 0 for anonymous mappings */
	uint64_t bias;         /* runtime address - ELF vaddr */
	uint64_t inode;
	uint64_t mtime_ns;
	uint32_t dev_major, dev_minor;
	uint32_t prot;         /* PROT_READ | PROT_WRITE | PROT_EXEC */
	const char *path;      /* as in /proc/PID/maps; may be "" */
	uint32_t build_id_len; /* 0..64 */
	const uint8_t *build_id;
};

/* Replaces every earlier snapshot of the same pid from time_ns on. */
struct trec_mapping_snapshot {
	uint64_t time_ns;
	uint32_t pid;
	uint32_t num_mappings;
	const struct trec_mapping *mappings;
};

enum trec_pid_event_kind {
	TREC_PEV_FORK = 1,
	TREC_PEV_EXEC = 2,
	TREC_PEV_EXIT = 3,
	TREC_PEV_COMM = 4,
	TREC_PEV_MMAP = 5,
};

struct trec_pid_event {
	uint64_t time_ns;
	uint32_t kind;        /* enum trec_pid_event_kind */
	uint32_t pid, tid;
	uint32_t parent_pid;  /* fork */
	int32_t exit_code;    /* exit */
	char comm[16];
	const char *filename; /* exec: new image path, or "" */
};

struct trec_file_info {
	uint64_t file_id;
	uint64_t size;
	uint64_t inode;
	uint64_t mtime_ns;
	uint32_t dev_major, dev_minor;
	const char *path;
	uint32_t build_id_len;
	const uint8_t *build_id;
	const char *debuglink; /* .gnu_debuglink name, or "" */
};

struct trec_ksym {
	uint64_t addr;
	char type;          /* nm-style type letter from /proc/kallsyms */
	const char *name;
	const char *module; /* "" for the core kernel */
};

struct trec_ksyms {
	uint64_t time_ns;
	uint32_t num_syms;
	const struct trec_ksym *syms; /* sorted by addr */
};

struct trec_metric_value {
	uint32_t id;      /* enum trec_metric, or >= 1000 for trecord's own */
	const char *name;
	uint64_t value;
};

struct trec_metrics {
	uint64_t time_ns;
	uint32_t num_values;
	const struct trec_metric_value *values;
};

/* Key/value facts: "hostname", "kernel_release", "cmdline", "freq_hz", ... */
struct trec_meta_entry {
	const char *key;
	const char *value;
};

struct trec_meta {
	uint32_t num_entries;
	const struct trec_meta_entry *entries;
};

struct trec_summary {
	uint64_t start_ns, end_ns;  /* CLOCK_MONOTONIC */
	uint64_t samples;           /* samples written */
	uint64_t lost;              /* samples lost, all causes */
	int32_t exit_status;        /* the command's wait status, or -1: none */
	uint32_t flags;             /* enum trec_stop_cause | signal << 8 */
};

/* SUMMARY flags: why the recording stopped (bits 0-3) and, for a stop
 * signal, its number (bits 8-15). 0: not said (older recordings). */
enum trec_stop_cause {
	TREC_STOP_UNKNOWN = 0,
	TREC_STOP_COMMAND = 1,  /* the recorded command ended */
	TREC_STOP_SIGNAL = 2,   /* SIGINT, SIGTERM or SIGHUP to trecord */
	TREC_STOP_DURATION = 3, /* --duration */
	TREC_STOP_PIDS = 4,     /* every -p process exited */
	TREC_STOP_ERROR = 5,    /* a write error */
	TREC_STOP_SWITCH = 6,   /* a switched file (--switch-output, SIGUSR2): recording went on; 1.2 */
};
#define TREC_SUMMARY_FLAGS(cause, sig) ((uint32_t)(cause) | ((uint32_t)(sig) & 0xffu) << 8)
#define TREC_SUMMARY_CAUSE(flags) ((flags) & 0xfu)
#define TREC_SUMMARY_SIGNAL(flags) (((flags) >> 8) & 0xffu)

/* An opaque blob (embedded symbol tables, python code objects, ...). */
struct trec_blob {
	uint64_t file_id; /* or code object address for python */
	uint32_t subtype; /* meaning defined by the record type */
	uint32_t len;
	const uint8_t *data;
};

/* ---- JIT symbols (FORMAT.md §6.12) --------------------------------------- */

enum trec_jit_source {
	TREC_JIT_PERF_MAP = 1, /* /tmp/perf-PID.map */
	TREC_JIT_JITDUMP = 2,  /* jit-PID.dump */
};

enum trec_jit_flags {
	TREC_JIT_F_FILTERED = 1,  /* only entries holding a sampled pc were kept */
	TREC_JIT_F_TRUNCATED = 2, /* a limit stopped the read: entries are missing */
	TREC_JIT_F_NO_TIME = 4,   /* the file's times are not CLOCK_MONOTONIC: all 0 */
};

struct trec_jit_line {
	uint64_t addr;  /* runtime code address the row starts at */
	uint32_t line;  /* 1-based; 0 unknown */
	uint32_t file;  /* index into trec_jitsyms.files */
};

struct trec_jit_entry {
	uint64_t start, size;  /* runtime code range [start, start + size) */
	uint64_t load_ns;      /* code loaded at (CLOCK_MONOTONIC); 0: unknown, always */
	uint64_t end_ns;       /* moved away or closed at; 0: never; else >= load_ns */
	uint64_t code_index;   /* jitdump code_index (perf's jitted-PID-INDEX.so); 0 */
	const char *name;
	uint32_t first_line, num_lines; /* rows lines[first_line ..) */
};

/* A pid's JIT symbols as trecord read them from one file at time_ns. */
struct trec_jitsyms {
	uint64_t time_ns;
	uint32_t pid;
	uint32_t source;       /* enum trec_jit_source */
	uint32_t flags;        /* enum trec_jit_flags */
	uint32_t bad;          /* lines or records of the file that were refused */
	const char *path;      /* the file, as the process names it */
	uint32_t num_files;    /* source files of the line rows */
	const char *const *files;
	uint32_t num_entries;
	const struct trec_jit_entry *entries;
	uint32_t num_lines;
	const struct trec_jit_line *lines; /* each entry's rows, sorted by addr */
};

struct trec_record {
	enum trec_record_type type;
	uint64_t file_offset; /* offset of the chunk holding this record */
	union {
		struct trec_meta meta;
		struct trec_sample sample;
		struct trec_mapping_snapshot mappings;
		struct trec_pid_event pid_event;
		struct trec_file_info file;
		struct trec_ksyms ksyms;
		struct trec_metrics metrics;
		struct trec_summary summary;
		struct trec_blob blob; /* SYMTAB, PYCODE, BLOB, INTERP_CODE */
		struct trec_jitsyms jitsyms;
	} u;
};

/* ---- header ------------------------------------------------------------ */

struct trec_header {
	uint16_t version_major, version_minor;
	uint32_t flags;
	uint64_t creation_time_ns; /* CLOCK_REALTIME */
	uint32_t page_size;
	uint32_t clock_id;         /* clock of every time_ns (CLOCK_MONOTONIC) */
	char kernel_release[65];
	char machine[65];          /* uname -m */
	char hostname[65];
};

/* Fills page size, clock, uname facts and the current time. */
void trec_header_init_host(struct trec_header *h);

/* ---- writer ------------------------------------------------------------ */

struct trec_writer;

#define TREC_DEFAULT_COMPRESSION_LEVEL 3 /* zstd's own default */
#define TREC_MAX_COMPRESSION_LEVEL 22    /* zstd's (ZSTD_maxCLevel) */

struct trec_writer_opts {
	size_t chunk_bytes;      /* uncompressed bytes per chunk; 0: default 1 MiB */
	int compression_level;   /* zstd level; 0: TREC_DEFAULT_COMPRESSION_LEVEL */
};

/* Creates path with mode 0600 (O_EXCL unless overwrite). NULL + errno. */
struct trec_writer *trec_writer_open(const char *path, const struct trec_header *h,
				     const struct trec_writer_opts *opts, int overwrite);
/* Writes to an already open fd (tests, pipes). Takes ownership of fd. */
struct trec_writer *trec_writer_open_fd(int fd, const struct trec_header *h,
					const struct trec_writer_opts *opts);

int trec_write_meta(struct trec_writer *w, const struct trec_meta *m);
int trec_write_sample(struct trec_writer *w, const struct trec_sample *s);
/* As trec_write_sample, for a caller that keeps its own index of the
 * chunk's stacks (trec_writer_last_stack) and knows s's stack is not in
 * it: the stack is added without the writer's lookup of its bytes, and
 * without an entry in the writer's index (a later trec_write_sample of
 * the same stack adds it again: a second entry, as valid). */
int trec_write_sample_unshared(struct trec_writer *w, const struct trec_sample *s);
/* Where the last written sample's stack is: entry *idx of the stack table
 * of *chunk (a token naming one chunk of one writer, the one being built
 * until it ends). True if that sample added it (or failed): a stack
 * already there was written before, with the same frames (what a caller
 * derives from them is known). */
bool trec_writer_last_stack(const struct trec_writer *w, uint64_t *chunk, uint32_t *idx);
/* A sample whose stack is entry stack_idx of chunk's table, as
 * trec_writer_last_stack named it: s's frames are not read. 0 when
 * written; 1 when nothing was (that chunk has ended, is another writer's,
 * or has no room for the sample); < 0 an error. */
int trec_write_sample_in_stack(struct trec_writer *w, const struct trec_sample *s,
			       uint64_t chunk, uint32_t stack_idx);
int trec_write_mappings(struct trec_writer *w, const struct trec_mapping_snapshot *m);
int trec_write_pid_event(struct trec_writer *w, const struct trec_pid_event *e);
int trec_write_file(struct trec_writer *w, const struct trec_file_info *f);
int trec_write_ksyms(struct trec_writer *w, const struct trec_ksyms *k);
int trec_write_metrics(struct trec_writer *w, const struct trec_metrics *m);
int trec_write_summary(struct trec_writer *w, const struct trec_summary *s);
/* type is TREC_REC_SYMTAB, TREC_REC_PYCODE, TREC_REC_BLOB or TREC_REC_INTERP_CODE. */
int trec_write_blob(struct trec_writer *w, enum trec_record_type type,
		    const struct trec_blob *b);

int trec_write_jitsyms(struct trec_writer *w, const struct trec_jitsyms *j);

/*
 * The trec_write_* calls return 0, -EINVAL for input over a FORMAT.md §7
 * limit (nothing written, the writer stays usable), -E2BIG for a record
 * over 64 MiB, or a write error (-ENOSPC, -EIO, ...) which is sticky: every
 * later call, and trec_writer_close(), returns it again.
 */

/* Ends the current chunk: compress, checksum, write(2). Durable at close. */
int trec_writer_flush(struct trec_writer *w);
/* Bytes written to the file so far (header + complete chunks). */
uint64_t trec_writer_bytes(const struct trec_writer *w);
/* Record bytes before compression: the chunks this writer compressed and
 * the one being built (what a level costs to compress). */
uint64_t trec_writer_record_bytes(const struct trec_writer *w);
/* The zstd level of the chunks compressed from now on: 1 to
 * TREC_MAX_COMPRESSION_LEVEL (the format is the same at every level).
 * 0, or -EINVAL and the level kept. */
int trec_writer_set_level(struct trec_writer *w, int level);
int trec_writer_level(const struct trec_writer *w);
/* Appends n bytes of whole chunks of another recording (chunk headers and
 * bodies, as a writer wrote them), renumbering their sequence: how trecord
 * assembles a switched file from chunks kept in memory. Flushes first.
 * 0, -EBADMSG (p is not whole chunks; nothing latched) or a write error. */
int trec_writer_copy_chunks(struct trec_writer *w, const uint8_t *p, size_t n);
/* SAMPLE records this writer took (not those copied as chunks), and the
 * oldest of their times (first_time may be NULL). */
uint64_t trec_writer_samples(const struct trec_writer *w, uint64_t *first_time);
/* Flushes, fsyncs and closes; frees w in every case. */
int trec_writer_close(struct trec_writer *w);

/* ---- reader ------------------------------------------------------------ */

struct trec_reader;

enum trec_reader_flags {
	/* Skip corrupt chunks (bad checksum, bad zstd, bad lengths) with a
	 * warning instead of stopping with an error. */
	TREC_READ_FORCE = 1,
};

typedef void (*trec_warn_fn)(void *ctx, const char *msg);

struct trec_reader_opts {
	unsigned flags;     /* enum trec_reader_flags */
	trec_warn_fn warn;  /* NULL: warnings go to stderr */
	void *warn_ctx;
};

/* NULL on failure with *err (negative errno or -EBADMSG) and a message in
 * errbuf (may be NULL). */
struct trec_reader *trec_reader_open(const char *path, const struct trec_reader_opts *o,
				     int *err, char *errbuf, size_t errlen);
/* Reads from fd, which the reader owns from here on (closed on failure
 * too); name is for messages. A pipe or socket (trecord -o - | treport -)
 * is first copied to an unlinked temporary file in $TMPDIR. */
struct trec_reader *trec_reader_open_fd(int fd, const char *name, const struct trec_reader_opts *o,
					int *err, char *errbuf, size_t errlen);
/* Reads from memory (fuzzing, tests); the buffer must outlive the reader. */
struct trec_reader *trec_reader_open_mem(const void *buf, size_t len,
					 const struct trec_reader_opts *o,
					 int *err, char *errbuf, size_t errlen);

const struct trec_header *trec_reader_header(const struct trec_reader *r);

/* 1: *rec filled; 0: end of file; < 0: error (message in trec_reader_error). */
int trec_reader_next(struct trec_reader *r, struct trec_record *rec);
const char *trec_reader_error(const struct trec_reader *r);

struct trec_reader_stats {
	uint64_t chunks, records, bad_chunks, skipped_chunks;
	uint64_t records_by_type[16];
	int truncated; /* the file ended inside a chunk */
	/* FORMAT.md §8, chunk sequence and SUMMARY: damage the CRCs miss */
	uint64_t seq_missing;     /* sequence numbers below the last that never came */
	uint64_t seq_duplicates;  /* chunks skipped: their sequence was read already */
	uint64_t seq_reordered;   /* chunks read out of sequence order */
	uint64_t samples;         /* SAMPLE records read */
	uint64_t summaries;       /* SUMMARY records read (1 in an intact recording) */
	uint64_t summary_samples; /* samples the first SUMMARY counts */
	unsigned header_unknown;  /* header fields with values 1.0 does not define:
				   * 1 clock_id, 2 page_size */
};
void trec_reader_stats(const struct trec_reader *r, struct trec_reader_stats *st);

void trec_reader_close(struct trec_reader *r);

const char *trec_record_type_name(enum trec_record_type t);

#endif /* TREC_FORMAT_H */
