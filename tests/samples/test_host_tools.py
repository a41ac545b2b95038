"""trace-extract kinds system and framework, collective-gaps from host-side timelines, and the host↔device
join of a framework summary, on the real samples in ../shared/samples (capture/ and kineto/), through the
real binary (`neuronlens call`). Expected values come from an independent Python-stdlib decoding of the
same files (the .pb decoder of test_system_summary.py; gzip + json for the traces) and from
../shared/samples/README.md. The join is tested on a capture directory built at test time: the real .pb
files copied into a temp dir next to a small trace.json whose ops bracket the real nrt_execute /
nc_exec_running window on the same clock. Skips (exit 77) with the reason when the samples are absent.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from decimal import Decimal

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'e2e'))
from mcp_session import BINARY  # noqa: E402
import test_system_summary as pbref  # noqa: E402  (the stdlib .pb decoder; its tests do not run from here)

SAMPLES = pbref.SAMPLES
CAPTURE = pbref.CAPTURE
KINETO = os.path.join(SAMPLES, 'kineto')
CPU_ONLY = os.path.join(KINETO, 'cpu_only_rank34.pt.trace.json.gz')
ALEXNET = os.path.join(KINETO, 'alexnet_cuda_trace.json.gz')
COMPARE = os.path.join(KINETO, 'compare_base.json.gz')
HAVE = os.path.isdir(CAPTURE) and os.path.isfile(CPU_ONLY)
EXEC_START = {4: 1773237645757031422, 5: 1773237645757029574}
EXEC_NS = {4: 982590, 5: 14763}
NRT_EXECUTE = (1773237645756860670, 1773237645758100805)  # begin, end (README; checked below)
LAUNCH_THREAD = 713744


def call(tool, args):
    r = subprocess.run([BINARY, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=120)
    out = json.loads(r.stdout) if r.stdout.strip() else None
    return r.returncode, out, r.stderr


def ok(tool, args):
    rc, out, err = call(tool, args)
    if rc != 0:
        raise AssertionError('%s %s failed (%d): %s %s' % (tool, args, rc, err, out))
    return out


def fails(tool, args):
    """The error text of a call that must fail as a tool error (exit 1)."""
    r = subprocess.run([BINARY, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    return r.stdout + r.stderr


def trace_events(path):
    with gzip.open(path, 'rb') as f:
        doc = json.loads(f.read(), parse_float=Decimal)
    return doc, doc['traceEvents']


def ns(v):
    return int(Decimal(v) * 1000)


def pages(tool_args):
    """Every row of a paged trace-extract query, following next_cursor."""
    rows, cursor = [], None
    while True:
        a = dict(tool_args)
        if cursor:
            a['cursor'] = cursor
        out = ok('trace-extract', a)
        rows += out['rows']
        cursor = out['next_cursor']
        if not cursor:
            return rows, out


@unittest.skipUnless(HAVE, 'samples directory %s is absent' % SAMPLES)
class SystemRows(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ref = pbref.reference()

    def test_nc_exec_running_rows_per_physical_core(self):
        out = ok('trace-extract', {'path': CAPTURE, 'kind': 'system', 'opcode': 'nc_exec_*',
                                   'columns': ['type', 'start_ns', 'duration_ns', 'core', 'nc', 'exec_id', 'hardware']})
        self.assertEqual(out['profile']['id'], 'rank0/system')
        self.assertEqual(out['total'], 2)
        self.assertEqual(out['rows'], [
            ['nc_exec_running', EXEC_START[5], EXEC_NS[5], 5, 0, 1, True],
            ['nc_exec_running', EXEC_START[4], EXEC_NS[4], 4, 0, 1, True]])
        self.assertIn('unix ns', out['units']['time'])

    def test_timeline_and_every_row_by_duration_through_cursors(self):
        spans = self.ref['spans']
        rows, last = pages({'path': CAPTURE, 'kind': 'system', 'sort': 'duration', 'max_rows': 97,
                            'columns': ['type', 'start_ns', 'duration_ns']})
        t = last['timeline']
        self.assertEqual(t['rows'], len(spans) + 2)  # pairs + the two timestamp_sync_point instants
        self.assertEqual(t['rows'], 839)
        self.assertEqual(t['first_ns'], 1773237645742008195)
        self.assertEqual(t['last_ns'], 1773237645758435066)
        self.assertEqual(len(rows), 839)
        durations = [r[2] for r in rows]
        want = sorted([e - s for _, s, e, _ in spans] + [0, 0], reverse=True)
        self.assertEqual(durations, want)
        self.assertEqual(rows[0], ['nrt_load', rows[0][1], 13579085])

    def test_engine_window_and_bytes(self):
        out = ok('trace-extract', {'path': CAPTURE, 'kind': 'system', 'engine': 'core4'})
        self.assertEqual(out['total'], 2)  # nc_exec_running and nc_model_switch on core 4
        self.assertEqual(sorted(r[0] for r in out['rows']), ['nc_exec_running', 'nc_model_switch'])
        out = ok('trace-extract', {'path': CAPTURE, 'kind': 'system', 'start_ns': EXEC_START[4],
                                   'end_ns': EXEC_START[4], 'opcode': 'nrt_*'})
        self.assertEqual([r[0] for r in out['rows']], ['nrt_execute'])  # the call active at that instant
        want = sum(1 for n, s, e, a in self.ref['spans'] if n == 'nrt_tensor_write')
        out = ok('trace-extract', {'path': CAPTURE, 'kind': 'system', 'opcode': 'nrt_tensor_write', 'sort': 'bytes',
                                   'max_rows': 1})
        self.assertEqual(out['total'], want)
        self.assertEqual(out['total'], 8)
        self.assertEqual(out['rows'][0][8], 4)  # bytes column of the default projection

    def test_filters_a_system_kind_does_not_have_are_argument_errors(self):
        text = fails('trace-extract', {'path': CAPTURE, 'kind': 'system', 'source': 'x.py'})
        self.assertIn('source', text)
        self.assertIn('does not apply to kind system', text)
        self.assertIn('min_duration_ns', text)  # says what the kind accepts
        text = fails('trace-extract', {'path': CAPTURE, 'kind': 'system', 'sort': 'wait'})
        self.assertIn('sort wait is not available for kind system; accepted: time, duration, bytes', text)
        text = fails('trace-extract', {'path': CAPTURE, 'kind': 'system', 'engine': 'gpu0'})
        self.assertIn('Invalid argument engine', text)
        self.assertIn('core4', text)
        text = fails('trace-extract', {'path': CAPTURE, 'kind': 'system', 'start_ns': 10, 'end_ns': 5})
        self.assertIn('Invalid argument end_ns', text)
        text = fails('trace-extract', {'path': CAPTURE, 'kind': 'system', 'profile': 'rank9/system'})
        self.assertIn('rank0/system (system)', text)
        text = fails('trace-extract', {'path': CAPTURE, 'kind': 'framework'})
        self.assertIn('No framework profile', text)
        self.assertIn('rank0/system (system)', text)
        text = fails('trace-extract', {'path': CAPTURE, 'kind': 'system', 'columns': ['type', 'opcode']})
        self.assertIn("'opcode' is not a column of kind system", text)


@unittest.skipUnless(HAVE, 'samples directory %s is absent' % SAMPLES)
class FrameworkRows(unittest.TestCase):
    def test_gloo_all_reduce_rows_are_unix_ns(self):
        doc, ev = trace_events(CPU_ONLY)
        base = int(doc['baseTimeNanoseconds'])
        want = sorted((base + ns(e['ts']), ns(e['dur']), e['tid']) for e in ev if e.get('name') == 'gloo:all_reduce')
        out = ok('trace-extract', {'path': CPU_ONLY, 'kind': 'framework', 'opcode': 'gloo:*', 'max_rows': 50,
                                   'columns': ['start_ns', 'duration_ns', 'tid', 'role', 'cat']})
        self.assertEqual(out['total'], 10)
        self.assertEqual([(r[0], r[1], int(r[2])) for r in out['rows']], want)
        self.assertEqual(out['rows'][0][:2], [1721065959548353304, 173209713])
        self.assertEqual({r[3] for r in out['rows']}, {'host'})
        self.assertEqual(out['timeline']['left_out'], {'metadata_events': 12, 'events_without_ts': 0})
        self.assertEqual(out['timeline']['rows'], 18)

    def test_alexnet_device_rows_and_kernels(self):
        doc, ev = trace_events(ALEXNET)
        device = [e for e in ev if str(e.get('pid')) == '0' and e.get('ph') != 'M']
        out = ok('trace-extract', {'path': ALEXNET, 'kind': 'framework', 'engine': 'device', 'sort': 'duration',
                                   'max_rows': 3, 'columns': ['name', 'cat', 'start_ns', 'duration_ns', 'correlation']})
        self.assertEqual(out['total'], len(device))
        self.assertEqual(out['total'], 278)
        top = sorted(device, key=lambda e: (-ns(e.get('dur', 0)), ns(e['ts'])))[:3]
        self.assertEqual([[r[0], r[1], r[2], r[3], r[4]] for r in out['rows']],
                         [[e['name'], e['cat'], ns(e['ts']), ns(e.get('dur', 0)), str(e['args']['correlation'])]
                          for e in top])
        sgemm = [e for e in ev if e.get('cat') == 'kernel' and 'sgemm' in e['name']]
        rows, _ = pages({'path': ALEXNET, 'kind': 'framework', 'opcode': '*SGEMM*', 'max_rows': 7,
                         'columns': ['duration_ns', 'cat']})
        self.assertEqual(len(rows), len(sgemm))
        self.assertEqual(sum(r[0] for r in rows), sum(ns(e['dur']) for e in sgemm))
        kernels, _ = pages({'path': ALEXNET, 'kind': 'framework', 'engine': 'device', 'min_duration_ns': 1,
                            'max_rows': 500, 'columns': ['cat', 'duration_ns']})
        self.assertEqual(sum(1 for c, _ in kernels if c == 'kernel'), 79)
        self.assertEqual(sum(d for c, d in kernels if c == 'kernel'), 10692000)

    def test_framework_argument_errors(self):
        text = fails('trace-extract', {'path': CPU_ONLY, 'kind': 'framework', 'layer': 'x'})
        self.assertIn('does not apply to kind framework', text)
        text = fails('trace-extract', {'path': CPU_ONLY, 'kind': 'framework', 'engine': 'tid:42'})
        self.assertIn('tid:3553', text)
        text = fails('trace-extract', {'path': KINETO, 'kind': 'framework'})
        self.assertIn('holds 5 profiles', text)
        self.assertIn('cpu_only_rank34.pt.trace.json.gz (framework)', text)
        out = ok('trace-extract', {'path': CPU_ONLY, 'kind': 'framework', 'opcode': 'gloo:*', 'max_rows': 4})
        text = fails('trace-extract', {'path': CPU_ONLY, 'kind': 'framework', 'opcode': 'aten::*',
                                       'cursor': out['next_cursor']})
        self.assertIn('not a next_cursor issued for this query', text)


def gaps(times):
    return [b - a for a, b in zip(times, times[1:])]


@unittest.skipUnless(HAVE, 'samples directory %s is absent' % SAMPLES)
class CollectiveGaps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        doc, ev = trace_events(CPU_ONLY)
        base = int(doc['baseTimeNanoseconds'])
        cls.times = {}
        for e in ev:
            if e.get('name') == 'gloo:all_reduce':
                cls.times.setdefault(int(e['tid']), []).append(base + ns(e['ts']))
        for t in cls.times.values():
            t.sort()

    def test_gloo_all_reduce_one_per_layer(self):
        g = gaps(self.times[3554])
        out = ok('collective-gaps', {'path': CPU_ONLY, 'collectives_per_layer': 1, 'skip_prologue_gaps': 0})
        self.assertEqual(out['status'], 'complete')
        self.assertEqual(out['cc_core'], 3554)  # 5 each: the tie goes to the highest id
        self.assertEqual([c['cc_core'] for c in out['cc_cores']['listed']], [3554, 3553])
        self.assertEqual(out['cc_cores']['listed'][0]['lane']['tid'], '3554')
        self.assertEqual([l['latency_ns'] for l in out['layers']], g)
        self.assertEqual(g, [212105381, 214914307, 440046631, 199339515])
        self.assertEqual(out['layers'][0]['start_ns'], self.times[3554][0])
        self.assertEqual(out['median_ns'], (212105381 + 214914307) // 2)
        self.assertEqual(out['provenance']['collectives']['events'], 10)
        self.assertEqual(out['provenance']['collectives']['source'], 'framework_host_annotations')
        self.assertIn('host_call_times', [q.get('code') for q in out['data_quality']])

    def test_default_mapping_reports_the_leftover_gap(self):
        out = ok('collective-gaps', {'path': CPU_ONLY, 'cc_core': 3553})
        g = gaps(self.times[3553])
        self.assertEqual(out['status'], 'inconsistent')
        self.assertEqual(out['cc_core'], 3553)
        self.assertEqual(out['mapping']['leftover_gaps'], 1)
        self.assertEqual(out['layers'][0]['latency_ns'], g[1] + g[2])
        self.assertEqual([x['ns'] for x in out['raw_gaps']['gaps']], g)
        self.assertIn('leftover_gaps', [q.get('code') for q in out['data_quality']])
        text = fails('collective-gaps', {'path': CPU_ONLY, 'cc_core': 7})
        self.assertIn('3553, 3554', text)

    def test_nccl_annotations_with_a_large_tid_are_numbered_by_thread(self):
        doc, ev = trace_events(COMPARE)
        t = sorted(ns(e['ts']) for e in ev if e.get('name') == 'nccl:all_reduce')
        out = ok('collective-gaps', {'path': COMPARE, 'collectives_per_layer': 1, 'skip_prologue_gaps': 0})
        self.assertEqual(out['provenance']['collectives']['lane_basis'], 'thread_index')
        self.assertEqual(out['cc_cores']['listed'][0]['lane']['tid'], '2575472')
        self.assertEqual([l['latency_ns'] for l in out['layers']], [t[1] - t[0]])
        self.assertEqual(t[1] - t[0], 122449000)

    def test_traces_and_captures_without_collectives_abstain(self):
        out = ok('collective-gaps', {'path': ALEXNET})
        self.assertEqual(out['status'], 'abstained')
        self.assertIn('no communication kernels', out['abstained']['reason'])
        out = ok('collective-gaps', {'path': os.path.dirname(CAPTURE), 'profile': 'rank0/system'})
        self.assertEqual(out['status'], 'abstained')
        self.assertIn('cc_running 0', out['abstained']['reason'])
        self.assertEqual(out['layers'], [])
        text = fails('collective-gaps', {'path': KINETO})
        self.assertIn('holds 5 profiles', text)
        self.assertIn('compare_base.json.gz (framework)', text)


def capture_with_trace(tmp, events, base=1773237645000000000):
    """tmp/<instance>_pid_<pid>/ holding copies of the real .pb files and a trace.json of `events`."""
    d = os.path.join(tmp, os.path.basename(CAPTURE))
    os.mkdir(d)
    for name in pbref.PB_FILES:
        shutil.copy(os.path.join(CAPTURE, name), d)
    with open(os.path.join(d, 'trace.json'), 'w') as f:
        json.dump({'schemaVersion': 1, 'baseTimeNanoseconds': base, 'traceEvents': events}, f)
    return os.path.basename(CAPTURE) + '/trace.json'


def us(t, base=1773237645000000000):
    """unix ns → Kineto µs text relative to base (3 decimals, exact)."""
    return float(Decimal(t - base) / 1000)


def op(name, start, end, tid=LAUNCH_THREAD, cat='cpu_op', pid=713479, **args):
    e = {'ph': 'X', 'cat': cat, 'name': name, 'pid': pid, 'tid': tid, 'ts': us(start),
         'dur': float(Decimal(end - start) / 1000)}
    if args:
        e['args'] = args
    return e


@unittest.skipUnless(HAVE, 'samples directory %s is absent' % SAMPLES)
class HostDeviceJoin(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ref = pbref.reference()
        execute = [(s, e) for n, s, e, _ in ref['spans'] if n == 'nrt_execute']
        assert execute == [NRT_EXECUTE], execute
        running = {int(a['device_core_idx']): (s, e) for n, s, e, a in ref['spans'] if n == 'nc_exec_running'}
        assert {c: s for c, (s, e) in running.items()} == EXEC_START, running

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def summary(self, events):
        rel = capture_with_trace(self.tmp, events)
        out = ok('summary', {'path': self.tmp, 'profile': rel})
        return out, out['host_device']

    def test_ops_bracketing_the_launch_get_the_device_time(self):
        out, hd = self.summary([
            op('ProfilerStep#7', 1773237645756000000, 1773237645759000000, cat='user_annotation'),
            op('aten::mul', 1773237645756100000, 1773237645756600000),
            op('aten::add', 1773237645756850000, 1773237645758150000)])
        self.assertEqual(hd['status'], 'joined')
        self.assertEqual(hd['system_profile'], 'rank0/system')
        self.assertEqual(hd['executions']['nc_exec_running_spans'], 2)
        self.assertEqual(hd['executions']['by_launch_call_in_op'], 2)
        self.assertEqual(hd['executions']['launch_thread_matched'], 2)
        self.assertEqual(hd['executions']['unattributed'], 0)
        self.assertEqual(hd['device_union_ns'], 984438)  # union over cores 4 and 5 (README)
        self.assertEqual(hd['device_core_sum_ns'], 982590 + 14763)
        self.assertEqual([(o['name'], o['device_union_ns'], o['device_core_sum_ns'], o['exec_spans']) for o in hd['ops']],
                         [('aten::add', 984438, 982590 + 14763, 2)])
        self.assertEqual(hd['steps'][0]['name'], 'ProfilerStep#7')
        self.assertEqual(hd['steps'][0]['device_union_ns'], 984438)
        self.assertEqual(hd['steps'][0]['wall_ns'], 3000000)
        ex = {e['core']: e for e in hd['execution_list']}
        self.assertEqual(ex[4]['start_unix_ns'], EXEC_START[4])
        self.assertEqual(ex[4]['device_ns'], EXEC_NS[4])
        self.assertEqual(ex[4]['launch'], {'type': 'nrt_execute', 'start_unix_ns': NRT_EXECUTE[0],
                                           'thread': LAUNCH_THREAD})
        self.assertEqual(ex[4]['model_id'], pbref.MODEL_ID)
        self.assertEqual(ex[5]['op'], 'aten::add')
        self.assertEqual(sum(e['thread_matched'] for e in hd['execution_list']),
                         hd['executions']['launch_thread_matched'])
        al = hd['clock_alignment']
        self.assertEqual(al['offset_applied_ns'], 0)
        self.assertEqual(al['framework_resolution_ns'], 1000)
        self.assertEqual(al['robust_to_offset_ns'], NRT_EXECUTE[0] - 1773237645756850000)  # 10,670 ns
        self.assertIn('baseTimeNanoseconds (1773237645000000000)', al['framework_to_unix'])
        self.assertIn('device_time_from_system_profile', [q.get('code') for q in out['data_quality']])

    def test_a_correlated_device_event_moves_the_time_to_its_op(self):
        dev = op('nc_exec_running', EXEC_START[4] + 250, EXEC_START[4] + EXEC_NS[4], tid=1, pid=4, cat='privateuse1_driver',
                 correlation=77)
        launch = op('nrta_execute_schedule', 1773237645756200000, 1773237645756300000, cat='privateuse1_runtime',
                    correlation=77)
        out, hd = self.summary([
            op('aten::mul', 1773237645756100000, 1773237645756600000), launch,
            op('aten::add', 1773237645756850000, 1773237645758150000), dev])
        self.assertEqual(hd['executions']['by_correlation'], 2)  # both cores overlap the one device event
        self.assertEqual([o['name'] for o in hd['ops']], ['aten::mul'])
        m = hd['clock_alignment']['measured_offset']
        # execution start − device event start: core 4 −250; core 5 starts 1,848 ns before core 4: −2,098
        self.assertEqual((m['samples'], m['min_ns'], m['median_ns'], m['max_ns']), (2, -2098, -2098, -250))
        self.assertEqual(EXEC_START[5] - (EXEC_START[4] + 250), -2098)
        self.assertEqual(hd['clock_alignment']['framework_resolution_ns'], 1)

    def test_a_trace_from_another_time_leaves_executions_unattributed(self):
        out, hd = self.summary([op('aten::add', 1773237000000000000, 1773237000001000000)])
        self.assertEqual(hd['executions']['unattributed'], 2)
        self.assertEqual(hd['executions']['unattributed_device_ns'], 984438)
        self.assertEqual(hd['executions']['outside_framework_window'], 2)
        self.assertEqual(hd['ops'], [])
        self.assertIn('unattributed_executions', [q.get('code') for q in out['data_quality']])

    def test_a_trace_outside_any_capture_says_why_there_is_no_join(self):
        out = ok('summary', {'path': CPU_ONLY})
        self.assertEqual(out['host_device']['status'], 'not_available')
        self.assertIn('not inside a capture directory', out['host_device']['reason'])

    def test_trace_extract_lines_up_both_kinds_on_one_clock(self):
        rel = capture_with_trace(self.tmp, [op('aten::add', 1773237645756850000, 1773237645758150000)])
        fw = ok('trace-extract', {'path': self.tmp, 'kind': 'framework', 'profile': rel})
        self.assertEqual(fw['rows'][0][2], 1773237645756850000)
        sysr = ok('trace-extract', {'path': self.tmp, 'kind': 'system', 'start_ns': fw['rows'][0][2],
                                    'end_ns': fw['rows'][0][2] + fw['rows'][0][3], 'opcode': 'nc_exec_running'})
        self.assertEqual(sysr['total'], 2)


if __name__ == '__main__':
    if not HAVE:
        print('SKIP: samples directory %s is absent' % SAMPLES)
        sys.exit(77)
    unittest.main()
