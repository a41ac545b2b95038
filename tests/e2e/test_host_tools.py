"""End-to-end: the host-side parts of issue 5 over the real binary (MCP over stdio), on inputs this test writes
itself — a capture directory with a system profile (trace_info.pb + ntrace.pb encoded here, event-type ids
unlike any runtime's) whose cc_running spans follow known per-layer latencies, and Kineto traces with
communication kernels and host collective annotations:

  - collective-gaps from cc_running (system) and from nccl kernels (framework), numbers recomputed by the
    plain-Python recipe of test_collective_gaps.py;
  - trace-extract kinds system and framework: filters, sorts, cursors, unix-ns times, argument errors;
  - the host_device section of a framework summary next to the system profile;
  - bad input: a cut-off trace.json (partial, labelled), a path without the asked-for kind.
Every structuredContent is validated against its tool's output schema. Stdlib only.
"""
import json
import os
import shutil
import struct
import tempfile
import unittest

from mcp_session import Session, schema_errors
from test_collective_gaps import LAYERS, recipe, trigger_times

T0 = 1773000000000000000          # unix ns of the first trigger
TIMES = [T0 + t for t in trigger_times(0, 700, LAYERS)]   # 26 collectives on core 8
CORE9 = [T0 + 100 + 5000 * i for i in range(5)]          # a second core with fewer
EXEC = (T0 - 500, TIMES[-1] + 1500)                       # nc_exec_running on core 8
BASE = T0 - 10 ** 9                                       # baseTimeNanoseconds of the kernels trace
TYPES = {41: 'nrt_execute', 42: 'nc_exec_running', 43: 'cc_running', 44: 'cc_exec_barrier'}


# ---- protobuf writing (formats.md §9) -------------------------------------------------------------------

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(n, v):
    if isinstance(v, int):
        return varint(n << 3) + varint(v)
    v = v.encode() if isinstance(v, str) else v
    return varint(n << 3 | 2) + varint(len(v)) + v


def trace_info(count):
    table = field(1, 'ntrace_inspect_type') + b''.join(field(2, field(1, i) + field(2, n)) for i, n in TYPES.items())
    return field(1, 2) + field(2, 4242) + field(10, table) + field(14, count)


def record(ts, type_id, phase, span, attrs, thread=4242):
    m = field(2, ts) + field(7, type_id) + field(9, thread) + field(10, span)
    for k, v in attrs.items():
        m += field(12, field(1, k) + field(2, str(v)))
    m += field(14, phase) + field(15, span)
    return struct.pack('<I', len(m)) + m


def ntrace():
    recs, span = [], 0
    for core, times in ((8, TIMES), (9, CORE9)):
        for t in times:
            span += 1
            base = {'worker_gid': 0, 'nc_idx': 0}
            recs.append(record(t, 43, 1, span, dict(base, device_core_idx=core)))
            recs.append(record(t + 150, 43, 2, span, base))
    span += 1
    recs.append(record(EXEC[0], 42, 1, span, {'nc_idx': 0, 'device_core_idx': 8, 'exec_id': 1, 'nc_timestamp_ns': 1}))
    recs.append(record(EXEC[1], 42, 2, span, {'nc_idx': 0, 'nc_timestamp_ns': 2}))
    return recs


class HostTools(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='nl_e2e_host_')
        cls.capture = os.path.join(cls.dir, 'cap', 'i-0123_pid_4242')
        os.makedirs(cls.capture)
        recs = ntrace()
        with open(os.path.join(cls.capture, 'trace_info.pb'), 'wb') as f:
            f.write(trace_info(len(recs)))
        with open(os.path.join(cls.capture, 'ntrace.pb'), 'wb') as f:
            f.write(b''.join(recs))
        # the framework trace of the same rank: a step and an op around the execution's start (unix µs, no
        # base; these values are multiples of 0.5 µs, exact in a double)
        cls.write_trace(os.path.join(cls.capture, 'trace.json'), [
            {'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep#1', 'pid': 4242, 'tid': 4242,
             'ts': (EXEC[0] - 2000) / 1000, 'dur': (EXEC[1] - EXEC[0] + 4000) / 1000},
            {'ph': 'X', 'cat': 'cpu_op', 'name': 'aten::matmul', 'pid': 4242, 'tid': 4242,
             'ts': (EXEC[0] - 1000) / 1000, 'dur': 2}])
        # a trace with nccl kernels on a device stream at TIMES, plus host annotations that must not be used
        # (ts relative to a base keeps 3 exact decimals in a double; unix µs would not)
        kernels = [{'ph': 'X', 'cat': 'kernel', 'name': 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL', 'pid': 0,
                    'tid': 7, 'ts': (t - BASE) / 1000, 'dur': 3} for t in TIMES]
        host = [{'ph': 'X', 'cat': 'user_annotation', 'name': 'nccl:all_reduce', 'pid': 4242, 'tid': 4242,
                 'ts': (t - BASE - 90000) / 1000, 'dur': 1} for t in TIMES[:4]]
        cls.kernels = os.path.join(cls.dir, 'kernels.json')
        cls.write_trace(cls.kernels, kernels + host, base=BASE)
        cls.s = Session()
        cls.s.initialize()
        tools = cls.s.call('tools/list')['result']['tools']
        cls.schemas = {t['name']: t['outputSchema'] for t in tools}

    @classmethod
    def tearDownClass(cls):
        cls.s.__exit__(None, None, None)
        shutil.rmtree(cls.dir)

    @staticmethod
    def write_trace(path, events, base=None):
        doc = {'schemaVersion': 1, 'traceEvents': events}
        if base is not None:
            doc['baseTimeNanoseconds'] = base
        with open(path, 'w') as f:
            json.dump(doc, f)

    def call(self, tool, args):
        r = self.s.call('tools/call', {'name': tool, 'arguments': args}, timeout=30)['result']
        if not r.get('isError'):
            self.assertEqual(schema_errors(self.schemas[tool], r['structuredContent']), [])
            self.assertLess(len(json.dumps(r)), 24 * 1024 + 1024)
        return r

    def ok(self, tool, args):
        r = self.call(tool, args)
        self.assertNotIn('isError', r, r['content'][0]['text'])
        return r['structuredContent']

    def error(self, tool, args):
        r = self.call(tool, args)
        self.assertTrue(r.get('isError'), r)
        return r['content'][0]['text']

    # -- collective-gaps ----------------------------------------------------------------------------------

    def test_cc_running_spans_give_the_known_layer_latencies(self):
        want = recipe(TIMES)
        out = self.ok('collective-gaps', {'path': os.path.join(self.dir, 'cap'), 'profile': 'rank0/system',
                                          'max_rows': 50})
        self.assertEqual(out['profile']['id'], 'rank0/system')
        self.assertEqual(out['cc_core'], 8)
        self.assertEqual([(c['cc_core'], c['trigger_starts']) for c in out['cc_cores']['listed']], [(8, 26), (9, 5)])
        self.assertEqual([l['latency_ns'] for l in out['layers']], want['latencies'])
        self.assertEqual(out['median_ns'], want['median'])
        self.assertEqual(out['p90_ns'], want['p90'])
        self.assertEqual([o['layer'] for o in out['outliers']], want['outliers'])
        self.assertEqual(out['layers'][0]['start_ns'], TIMES[1])
        self.assertEqual(out['totals']['total_time_ns'], EXEC[1] - EXEC[0])
        self.assertIn('core 8', out['totals']['total_time_source'])
        self.assertEqual(out['provenance']['collectives']['source'], 'system_cc_running')
        self.assertEqual(out['provenance']['collectives']['lane_basis'], 'device_core_idx')

    def test_forced_core_pages_and_cursors(self):
        out = self.ok('collective-gaps', {'path': self.capture, 'profile': 'rank0/system', 'cc_core': 9,
                                          'collectives_per_layer': 1, 'skip_prologue_gaps': 0, 'max_rows': 2})
        self.assertEqual(out['cc_core'], 9)
        self.assertEqual([l['latency_ns'] for l in out['layers']], [5000, 5000])
        self.assertTrue(out['truncated'])
        nxt = self.ok('collective-gaps', {'path': self.capture, 'profile': 'rank0/system', 'cc_core': 9,
                                          'collectives_per_layer': 1, 'skip_prologue_gaps': 0, 'max_rows': 2,
                                          'cursor': out['next_cursor']})
        self.assertEqual([l['layer'] for l in nxt['layers']], [2, 3])
        text = self.error('collective-gaps', {'path': self.capture, 'profile': 'rank0/system',
                                              'cursor': out['next_cursor']})
        self.assertIn('not a cursor of this lane and mapping', text)
        text = self.error('collective-gaps', {'path': self.capture, 'profile': 'rank0/system', 'cc_core': 3})
        self.assertIn('lanes by device_core_idx: 8, 9', text)

    def test_nccl_kernels_on_a_device_stream(self):
        want = recipe(TIMES)
        out = self.ok('collective-gaps', {'path': self.kernels, 'max_rows': 50})
        self.assertEqual(out['provenance']['collectives']['source'], 'framework_device_kernels')
        self.assertEqual(out['provenance']['collectives']['host_annotations_not_used'], 4)
        self.assertEqual(out['cc_core'], 7)
        self.assertEqual([l['latency_ns'] for l in out['layers']], want['latencies'])
        self.assertEqual(out['median_ns'], want['median'])

    def test_device_profiles_keep_the_show_session_path(self):
        # a directory with only a trace: routed here without "profile"; with a device profile it would not be
        out = self.ok('collective-gaps', {'path': self.kernels})
        self.assertEqual(out['profile']['kind'], 'framework')
        text = self.error('collective-gaps', {'path': self.capture, 'profile': 'rank7/system'})
        self.assertIn("no profile 'rank7/system'", text)  # one message for every kind, listing every profile
        self.assertIn('rank0/system (system)', text)

    # -- trace-extract --------------------------------------------------------------------------------------

    def test_system_rows_on_the_unix_clock(self):
        out = self.ok('trace-extract', {'path': self.capture, 'kind': 'system', 'engine': 'core9',
                                        'columns': ['type', 'start_ns', 'duration_ns', 'core', 'phase']})
        self.assertEqual(out['total'], 5)
        self.assertEqual(out['rows'][0], ['cc_running', CORE9[0], 150, 9, 'span'])
        out = self.ok('trace-extract', {'path': self.capture, 'kind': 'system', 'sort': 'duration', 'max_rows': 1})
        self.assertEqual(out['rows'][0][:3], ['nc_exec_running', EXEC[0], EXEC[1] - EXEC[0]])
        out = self.ok('trace-extract', {'path': self.capture, 'kind': 'system', 'start_ns': TIMES[3],
                                        'end_ns': TIMES[5], 'opcode': 'cc_*'})
        self.assertEqual(out['total'], 2 + sum(1 for t in CORE9 if TIMES[3] - 150 < t < TIMES[5]))
        self.assertEqual(out['timeline']['first_ns'], EXEC[0])

    def test_framework_rows_and_pages(self):
        rows, cursor, seen = [], None, 0
        while True:
            args = {'path': self.kernels, 'kind': 'framework', 'engine': 'device', 'max_rows': 7,
                    'columns': ['start_ns', 'tid', 'role']}
            if cursor:
                args['cursor'] = cursor
            out = self.ok('trace-extract', args)
            rows += out['rows']
            seen += 1
            cursor = out['next_cursor']
            if not cursor:
                break
        self.assertEqual(seen, 4)
        self.assertEqual([r[0] for r in rows], TIMES)
        self.assertEqual({(r[1], r[2]) for r in rows}, {('7', 'device')})

    def test_bad_arguments_name_what_the_kind_accepts(self):
        text = self.error('trace-extract', {'path': self.kernels, 'kind': 'framework', 'min_wait_ns': 5})
        self.assertIn('min_wait_ns', text)
        self.assertIn('does not apply to kind framework', text)
        text = self.error('trace-extract', {'path': self.kernels, 'kind': 'system'})
        self.assertIn('No system profile', text)
        self.assertIn('for kind system', text)
        text = self.error('trace-extract', {'path': self.capture, 'kind': 'system', 'engine': 'core77'})
        self.assertIn('core8, core9', text)
        text = self.error('trace-extract', {'path': self.capture, 'kind': 'gpu'})
        self.assertIn('system, framework', text)

    def test_a_cut_off_trace_is_labelled_partial(self):
        path = os.path.join(self.dir, 'cut.json')
        with open(self.kernels) as f, open(path, 'w') as g:
            g.write(f.read()[:3000])
        out = self.ok('trace-extract', {'path': path, 'kind': 'framework', 'max_rows': 1})
        self.assertGreater(out['total'], 0)
        self.assertTrue(any(q['problem'].startswith('PARTIAL') for q in out['data_quality']))

    # -- summary host_device -------------------------------------------------------------------------------

    def test_summary_of_the_trace_joins_the_execution(self):
        out = self.ok('summary', {'path': self.capture, 'profile': 'trace.json'})
        hd = out['host_device']
        self.assertEqual(hd['status'], 'joined')
        self.assertEqual(hd['executions']['by_execution_start_in_op'], 1)  # no nrt_execute in this capture
        self.assertEqual(hd['executions']['unattributed'], 0)
        self.assertEqual([(s['name'], s['device_union_ns']) for s in hd['steps']],
                         [('ProfilerStep#1', EXEC[1] - EXEC[0])])
        self.assertEqual([(o['name'], o['device_union_ns'], o['device_core_sum_ns']) for o in hd['ops']],
                         [('aten::matmul', EXEC[1] - EXEC[0], EXEC[1] - EXEC[0])])
        self.assertEqual(hd['execution_list'][0]['thread_matched'], False)  # no launch call to match
        self.assertEqual(hd['executions']['launch_thread_matched'], 0)
        self.assertEqual(hd['execution_list'][0]['slack_ns'], 1000)  # 1 µs on either side of the start
        self.assertEqual(hd['execution_list'][0]['launch'], None)
        self.assertEqual(hd['clock_alignment']['framework_to_unix'],
                         'ts is unix µs (the trace has no baseTimeNanoseconds), converted exactly to ns')
        codes = [q.get('code') for q in out['data_quality']]
        self.assertIn('no_launch_calls', codes)


if __name__ == '__main__':
    unittest.main()
