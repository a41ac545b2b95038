/* timeline_kinds — the timeline adapters (timeline.h) of every kind trace-extract pages through. Each is a
 * static description plus callbacks; pair one with the model it reads in a timeline_source:
 *
 *   kind         model (timeline_source.model)   file                   times
 *   instruction  const device_model *            timeline_device.c      ns from the profile start
 *   dma          const device_model *            timeline_device.c      ns from the profile start
 *   semaphore    const device_model *            timeline_device.c      ns from the profile start
 *   collective   const device_model *            timeline_device.c      ns from the profile start
 *   system       const system_model *            timeline_system.c      unix ns (host CPU clock)
 *   framework    const framework_model *         timeline_framework.c   unix ns (baseTimeNanoseconds + ts)
 *   memory       const memory_model *            timeline_memory.c      unix ns (allocator time_us × 1000)
 *
 * What each kind's filters match:
 *   instruction  engine: the engine (subgroup) or timeline label, exact, case-insensitive (the canonical
 *                engines tensor, vector, scalar, gpsimd, sync are accepted even with no row); opcode: a glob
 *                on opcode or compiler_opcode; source, layer: substrings; min_duration_ns, min_wait_ns,
 *                min_bytes (HBM + SBUF reads and writes)
 *   dma          engine: the queue name or subgroup; min_duration_ns; min_bytes (transfer size)
 *                                                                        sorts: time, duration, bytes
 *   semaphore    the window only                                         sorts: time
 *   collective   the CcOp rows (Parquet profiles): engine: the trigger engine; opcode: a glob on the operation;
 *                min_duration_ns, min_wait_ns (cc_trigger_start_delay), min_bytes (output_size)
 *                                                                        sorts: time, duration, wait, bytes
 *   system       engine: "host" (runtime API spans), "device" or "hardware" (events carrying
 *                nc_timestamp_ns), "nc<N>", "core<N>", "worker<N>", "thread<N>"; opcode: a glob on the
 *                event type name; min_duration_ns (end − start)          sorts: time, duration, bytes
 *   framework    engine: "host" or "device" (the process role), "pid:<pid>", "tid:<tid>", or a pid, tid,
 *                process name or thread name written exactly; opcode: a glob on the event name;
 *                min_duration_ns. Metadata events (ph M) and events without a usable ts are left out.
 *   memory       engine: "device<N>" or "<N>" (a device_traces index); opcode: comma-separated globs on the
 *                action (alloc, free_requested, ..., oom); min_bytes on the entry's size. Entries without
 *                time_us are left out.                                  sorts: time, bytes
 * An engine value that matches no row is an argument error (an instruction engine that is canonical is not).
 * Read-only over immutable models: any thread. */
#ifndef NL_TIMELINE_KINDS_H
#define NL_TIMELINE_KINDS_H

#include "timeline.h"

extern const timeline_adapter timeline_instruction;
extern const timeline_adapter timeline_dma;
extern const timeline_adapter timeline_semaphore;
extern const timeline_adapter timeline_collective;
extern const timeline_adapter timeline_system;
extern const timeline_adapter timeline_framework;
extern const timeline_adapter timeline_memory;

#endif
