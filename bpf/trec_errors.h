/* SPDX-License-Identifier: MIT */
/*
 * Error codes and metric ids shared by the BPF programs, trecord and treport.
 *
 * Both lists are X-macros so the enum (used in BPF) and the name tables
 * (used in userspace, and written into recordings) can never drift apart.
 * Codes are grouped in blocks of 1000 like the OTel profiler's errors.h.
 * Never renumber an entry: recordings store the numbers.
 */
#ifndef TREC_ERRORS_H
#define TREC_ERRORS_H

/* X(name, code, description) */
#define TREC_ERROR_LIST(X)                                                    \
	X(OK, 0, "no error")                                                   \
	X(UNREACHABLE, 1, "unreachable code reached")                          \
	X(STACK_LENGTH_EXCEEDED, 2, "stack has more frames than a trace holds") \
	X(EMPTY_STACK, 3, "no frames could be collected")                      \
	X(MAX_TAIL_CALLS, 4, "tail-call budget exhausted")                     \
	X(NO_PID_INFO, 5, "pid not yet known to trecord")                      \
	X(THROTTLED, 6, "CPU budget spent: only the leaf frame (--max-cpu)")   \
	X(DELTA_NO_BASE, 7, "trace delta whose previous trace was lost: only the leaf frame") \
	X(SELF, 8, "trecord's own thread: its time counts, its stack is not walked") \
	X(PYTHON_BAD_TSD, 2000, "python: thread state not readable")            \
	X(PYTHON_BAD_FRAME, 2001, "python: frame not readable")                 \
	X(PYTHON_BAD_CODE, 2002, "python: code object not readable")            \
	X(PYTHON_NO_PROC_INFO, 2003, "python: no offsets for this process")     \
	X(RUBY_BAD_EC, 6000, "ruby: execution context not readable")            \
	X(RUBY_BAD_FRAME, 6001, "ruby: control frame not readable")             \
	X(RUBY_BAD_ISEQ, 6002, "ruby: instruction sequence not readable")       \
	X(RUBY_NO_PROC_INFO, 6003, "ruby: no offsets for this process")         \
	X(NATIVE_LOOKUP_TEXT_SECTION, 4000, "pc not in any known mapping")      \
	X(NATIVE_NO_PAGE_INFO, 4001, "no stack-delta page for this pc")         \
	X(NATIVE_EXCEEDED_DELTA_LOOKUP_ITERATIONS, 4002,                       \
	  "stack-delta binary search did not converge")                         \
	X(NATIVE_STACK_DELTA_INVALID, 4003, "no unwind rule covers this pc")    \
	X(NATIVE_UNSUPPORTED_RULE, 4004, "unwind rule the BPF side cannot run") \
	X(NATIVE_PC_READ, 4005, "return address not readable")                 \
	X(NATIVE_CFA_READ, 4006, "dereferenced CFA not readable")              \
	X(NATIVE_FP_READ, 4007, "saved frame pointer not readable")            \
	X(NATIVE_ZERO_PC, 4008, "return address is zero")                      \
	X(NATIVE_SMALL_PC, 4009, "return address below 0x1000")                \
	X(NATIVE_KERNEL_ADDRESS, 4010, "user pc is a kernel address")          \
	X(NATIVE_NO_USER_REGS, 4011, "user registers not available")           \
	X(NATIVE_BAD_UNWIND_INFO, 4012, "unwind info index out of range")      \
	X(NATIVE_SIGNAL_FRAME_READ, 4013, "signal frame not readable")         \
	X(NATIVE_SP_NOT_INCREASING, 4014, "stack pointer did not increase")    \
	X(FP_ZERO, 4015, "frame pointer zero after a CFI step")                \
	X(FP_MISALIGNED, 4016, "frame pointer not 8-byte aligned")             \
	X(FP_BELOW_SP, 4017, "frame pointer below the frame's stack pointer")  \
	X(FP_OUTSIDE_STACK, 4018, "frame pointer too far above the stack")     \
	X(FP_RECORD_READ, 4019, "frame record (saved fp, return address) not readable") \
	X(FP_BAD_RETURN_ADDRESS, 4020, "frame record's return address is not user text") \
	X(NATIVE_LR_INVALID, 4021, "return address in the link register, which only the leaf has") \
	X(NATIVE_SP_UNKNOWN, 4022, "sp-based rule after a frame-pointer step (arm64: sp unknown)") \
	X(NATIVE_DEFERRED_STACK_END, 4023, "deferred walk: caller's frame beyond the copied stack bytes") \
	X(NATIVE_DEFERRED_INTERPRETER, 4024, "deferred walk: interpreter frames need live memory") \
	X(PHP_NO_PROC_INFO, 3000, "php: no offsets for this process")        \
	X(PHP_BAD_GLOBALS, 3001, "php: executor_globals not readable")       \
	X(PHP_BAD_FRAME, 3002, "php: zend_execute_data not readable")        \
	X(PHP_BAD_FUNCTION, 3003, "php: zend_function not readable")         \
	X(PHP_BAD_OPLINE, 3004, "php: opline not readable") \
	X(PERL_BAD_TSD, 5000, "perl: interpreter of the thread not readable")  \
	X(PERL_BAD_STACKINFO, 5001, "perl: stackinfo not readable")             \
	X(PERL_NO_PROC_INFO, 5002, "perl: no offsets for this process")         \
	X(PERL_BAD_CV, 5003, "perl: sub of a context entry not readable")

enum trec_error {
#define TREC_X(name, code, desc) TREC_ERR_##name = code,
	TREC_ERROR_LIST(TREC_X)
#undef TREC_X
};

/*
 * Metrics: one per-CPU u64 counter each. Every failure branch in BPF bumps
 * its own counter. X(name, description); ids are the position in the list.
 */
#define TREC_METRIC_LIST(X)                                                   \
	X(SAMPLES, "perf events that reached the sampler")                     \
	X(TRACES_SENT, "traces written to the ring buffer")                    \
	X(TRACES_LOST_RINGBUF, "traces dropped: ring buffer full")             \
	X(PID_UNKNOWN, "samples from a pid not yet synced")                    \
	X(PID_REPORTED, "pids reported to userspace")                          \
	X(PID_REPORT_FAILED, "pid report did not fit the pid_events map")      \
	X(PID_EVENTS_SENT, "fork/exec/exit events written")                    \
	X(PID_EVENTS_LOST, "fork/exec/exit events dropped: ring buffer full")  \
	X(KERNEL_STACK_FAILED, "bpf_get_stackid failed")                       \
	X(NO_USER_REGS, "user registers not available")                        \
	X(UNKNOWN_PC, "pc in a known pid but no known mapping")               \
	X(STACK_LENGTH_EXCEEDED, "stack longer than a trace holds")           \
	X(MAX_TAIL_CALLS, "tail-call budget exhausted")                        \
	X(TAIL_CALL_FAILED, "bpf_tail_call returned")                          \
	X(NATIVE_FRAMES, "native frames unwound")                              \
	X(NATIVE_NO_PAGE_INFO, "no stack-delta page for pc")                  \
	X(NATIVE_DELTA_LOOKUP_ITERATIONS, "delta search did not converge")     \
	X(NATIVE_DELTA_INVALID, "pc not covered by an unwind rule")            \
	X(NATIVE_UNSUPPORTED_RULE, "unsupported unwind rule")                  \
	X(NATIVE_PC_READ, "return address read failed")                        \
	X(NATIVE_CFA_READ, "dereferenced CFA read failed")                     \
	X(NATIVE_FP_READ, "saved frame pointer read failed")                   \
	X(NATIVE_ZERO_PC, "zero return address")                              \
	X(NATIVE_SMALL_PC, "return address below 0x1000")                      \
	X(NATIVE_KERNEL_ADDRESS, "kernel address as user pc")                  \
	X(NATIVE_BAD_UNWIND_INFO, "unwind info index out of range")            \
	X(NATIVE_SIGNAL_FRAME_READ, "signal frame read failed")                \
	X(NATIVE_SP_NOT_INCREASING, "stack pointer did not increase")          \
	X(NATIVE_STOPPED, "stacks ended at an explicit stop rule")             \
	X(PYTHON_FRAMES, "python frames unwound")                              \
	X(PYTHON_ERRORS, "python unwinder errors")                             \
	X(PID_VIA_PARENT, "samples of a forked pid unwound with its parent's mappings") \
	X(PC_VIA_VMA, "pcs resolved through their VMA's file, not the trie")   \
	X(FP_FRAMES, "frames unwound by frame pointer")                        \
	X(FP_STOPPED, "stacks ended at a zero frame pointer")                  \
	X(FP_ZERO, "frame pointer zero after a CFI step")                      \
	X(FP_MISALIGNED, "frame pointer not 8-byte aligned")                   \
	X(FP_BELOW_SP, "frame pointer below the frame's stack pointer")        \
	X(FP_OUTSIDE_STACK, "frame pointer too far above the stack")           \
	X(FP_RECORD_READ, "frame record read failed")                          \
	X(FP_BAD_RETURN_ADDRESS, "frame record's return address not user text") \
	X(NATIVE_FP_FALLBACK, "frames unwound by frame pointer while their file's deltas load") \
	X(NATIVE_LR_INVALID, "arm64: return address in the link register above the leaf") \
	X(NATIVE_SP_UNKNOWN, "arm64: sp-based rule right after a frame-pointer step") \
	X(PHP_FRAMES, "php frames unwound")                                    \
	X(PHP_ERRORS, "php unwinder errors") \
	X(OFFCPU_SWITCHES, "off-CPU: followed threads that blocked (stack taken)")  \
	X(OFFCPU_SENT, "off-CPU: waits written to the ring buffer")            \
	X(OFFCPU_SHORT, "off-CPU: waits below the threshold, not written")     \
	X(OFFCPU_PENDING_FULL, "off-CPU: waits lost, offcpu_pending map full") \
	X(OFFCPU_NO_SWITCH_IN, "off-CPU: waits lost, the thread ran again with no switch-in seen and no end to tell") \
	X(PERL_FRAMES, "perl frames unwound")                                  \
	X(PERL_ERRORS, "perl unwinder errors")                                 \
	X(PERL_CX_SKIPPED, "perl context entries skipped (half-written top entry)") \
	X(RUBY_FRAMES, "ruby frames unwound")                                  \
	X(RUBY_ERRORS, "ruby unwinder errors") \
	X(THROTTLED, "samples cut to their leaf: the CPU budget was spent (--max-cpu)") \
	X(SAMPLER_NS, "ns in BPF, entry to the end of the send (samples, off-CPU stacks), all CPUs") \
	X(GO_STACK_SWITCHES, "Go: frame-pointer steps from the g0 stack to the goroutine's") \
	X(GO_SWITCH_ROOTS, "Go: stacks ended at systemstack, mcall, morestack (g0), clone, asmcgocall (SPWRITE)") \
	X(DEFERRED_SENT, "samples whose walk was deferred: stack copied for userspace (deltas loading)") \
	X(DEFERRED_LOST, "deferrals refused (ring buffer backlog, stack unreadable): frame-pointer fallback") \
	X(DEFERRED_NO_PID, "of DEFERRED_SENT: samples of a process not synced yet, deferred from the leaf") \
	X(FOLLOW_FAILED, "forked children not followed: followed_pids full or out of memory") \
	X(STACK_REPLAYED, "traces whose outer frames were proven unchanged and reused (stack replay)") \
	X(TRACES_SENT_DELTA, "of TRACES_SENT: sent as a delta, the frames before the replay point only") \
	X(SELF_SAMPLES, "samples and waits of trecord's own threads, kept unwalked (SELF frame)") \
	X(REPLAY_QUIET, "native walks logged for a replay not at all or to frame 4: their CPU's last replay tries failed") \
	X(OFFCPU_SWITCH_IN_UNSEEN, "off-CPU: waits whose switch-in no sched_switch showed, ended at the thread's next switch-out (written)")

enum trec_metric {
#define TREC_X(name, desc) TREC_METRIC_##name,
	TREC_METRIC_LIST(TREC_X)
#undef TREC_X
	TREC_METRIC_COUNT
};

#endif /* TREC_ERRORS_H */
