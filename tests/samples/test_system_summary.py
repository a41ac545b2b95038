"""summary and orient on the real system-profile capture in ../shared/samples/capture, through the real
binary (`neuronlens call`), checked against an independent Python-stdlib decoding of the same .pb files
and against the facts in ../shared/samples/README.md. Also: a capture directory holding only the four .pb
files is routed to the system summary by path alone, and a cut-off ntrace.pb gives a result labelled
partial with the offset. Skips (exit 77) with the reason when the samples are absent.
"""
import collections
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'e2e'))
from mcp_session import BINARY  # noqa: E402

SAMPLES = os.environ.get('NL_SAMPLES_DIR', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'samples'))
CAPTURE = os.path.join(SAMPLES, 'capture', 'i-0af76a70a6d3864dd_pid_713479')
PB_FILES = ['trace_info.pb', 'ntrace.pb', 'cpu_util.pb', 'host_mem.pb']
MODEL_ID = '171450338541704'


def call(tool, args):
    r = subprocess.run([BINARY, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=60)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


# ---- independent decoding (stdlib only) --------------------------------------------------------------

def varint(b, p):
    v = s = 0
    while True:
        c = b[p]
        p += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, p


def fields(b):
    p, out = 0, []
    while p < len(b):
        t, p = varint(b, p)
        f, w = t >> 3, t & 7
        if w == 0:
            v, p = varint(b, p)
        elif w == 1:
            v, p = b[p:p + 8], p + 8
        elif w == 5:
            v, p = b[p:p + 4], p + 4
        elif w == 2:
            n, p = varint(b, p)
            v, p = b[p:p + n], p + n
        else:
            raise ValueError('wire type %d' % w)
        out.append((f, v))
    return out


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def stream(path):
    b = read(path)
    p, recs = 0, []
    while p < len(b):
        n = struct.unpack_from('<I', b, p)[0]
        recs.append(b[p + 4:p + 4 + n])
        p += 4 + n
    assert p == len(b)
    return recs


def union(iv):
    total, cur = 0, None
    for s, e in sorted(iv):
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
            continue
        if cur:
            total += cur[1] - cur[0]
        cur = [s, e]
    return total + (cur[1] - cur[0] if cur else 0)


def reference():
    """Event spans, per-type pairs, per-core busy time from the files, without neuronlens."""
    names = {}
    for f, v in fields(read(os.path.join(CAPTURE, 'trace_info.pb'))):
        if f == 10:
            t = fields(v)
            if bytes(t[0][1]) == b'ntrace_inspect_type':
                for f2, v2 in t[1:]:
                    d = dict(fields(v2))
                    names[d.get(1, 0)] = bytes(d[2]).decode()
    events = []
    for r in stream(os.path.join(CAPTURE, 'ntrace.pb')):
        d, attrs = {}, {}
        for f, v in fields(r):
            if f == 12:
                a = {k: bytes(x).decode() for k, x in fields(v)}
                attrs[a[1]] = a[2]
            else:
                d[f] = v
        d['attrs'] = attrs
        events.append(d)
    begins = {e[15]: e for e in events if e[14] == 1}
    spans = []
    for e in events:
        if e[14] == 2:
            b = begins[e[15]]
            attrs = dict(e['attrs'])
            attrs.update(b['attrs'])
            spans.append((names[b[7]], b[2], e[2], attrs))
    pairs = collections.Counter(s[0] for s in spans)
    cores = collections.defaultdict(list)
    for name, s, e, a in spans:
        if name == 'nc_exec_running':
            cores[int(a['device_core_idx'])].append((s, e))
    cpu = [dict(fields(r)) for r in stream(os.path.join(CAPTURE, 'cpu_util.pb'))]
    mem = [dict(fields(r)) for r in stream(os.path.join(CAPTURE, 'host_mem.pb'))]
    return {
        'records': len(events), 'pairs': pairs, 'spans': spans,
        'cores': {c: union(iv) for c, iv in cores.items()},
        'device_busy': union([iv for ivs in cores.values() for iv in ivs]),
        'window': max(max(e[2] for e in events), 0) - min(e[2] for e in events),
        'loads': sorted((int(a['worker_gid']), e - s) for n, s, e, a in spans if n == 'nrt_load'),
        'cpu_max': max(struct.unpack('<f', bytes(r[1]))[0] for r in cpu if 1 in r),
        'mem': (min(r[1] for r in mem), max(r[1] for r in mem)),
    }


@unittest.skipUnless(os.path.isdir(CAPTURE), 'samples directory %s is absent' % SAMPLES)
class SystemSummary(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ref = reference()
        rc, cls.out, err = call('summary', {'path': CAPTURE, 'profile': 'rank0/system'})
        assert rc == 0, err

    def test_envelope(self):
        o = self.out
        self.assertEqual(o['profile']['id'], 'rank0/system')
        self.assertEqual(o['profile']['kind'], 'system')
        self.assertEqual(o['status'], 'complete')
        self.assertFalse(o['partial'])
        self.assertIn('units', o)
        self.assertEqual(o['total_time_ns'], self.ref['window'])
        self.assertEqual(o['total_time_ns'], 16426871)

    def test_device_busy_per_core_and_union(self):
        d = self.out['device']
        cores = {c['core']: c['busy_ns'] for c in d['cores']}
        self.assertEqual(cores, {4: 982590, 5: 14763})
        self.assertEqual(cores, self.ref['cores'])
        self.assertEqual(d['busy_ns'], 984438)
        self.assertEqual(d['busy_ns'], self.ref['device_busy'])
        self.assertEqual(d['idle_ns'], 16426871 - 984438)
        self.assertEqual(self.out['gaps']['count'], 0)
        lead = self.out['gaps']['before_first_execution']
        self.assertEqual(lead['host_activity'][0]['type'], 'nrt_load')

    def test_runtime_spans_match_the_independent_count(self):
        got = {t['type']: t['spans'] for t in self.out['runtime_api']['spans_by_type'] if t['spans']}
        self.assertEqual(got, dict(self.ref['pairs']))
        inst = {t['type']: t.get('instants', 0) for t in self.out['runtime_api']['spans_by_type']}
        self.assertEqual(inst['timestamp_sync_point'], 2)
        totals = {t['type']: t['total_ns'] for t in self.out['runtime_api']['spans_by_type']}
        for name in self.ref['pairs']:
            self.assertEqual(totals[name], sum(e - s for n, s, e, _ in self.ref['spans'] if n == name), name)

    def test_loads_executions_and_models(self):
        loads = sorted((i['worker_gid'], i['duration_ns']) for i in self.out['loads']['items'])
        self.assertEqual(loads, self.ref['loads'])
        self.assertEqual([d for _, d in loads], [13579085, 12779175, 13252714, 10658831])
        ex = self.out['executions']
        self.assertEqual(ex['total'], 1)
        self.assertEqual(ex['items'][0]['model_id'], MODEL_ID)
        self.assertEqual(ex['items'][0]['cores'], 2)
        self.assertEqual(ex['items'][0]['nrt_execute_ns'], 1240135)
        m = self.out['models']['items'][0]
        self.assertEqual(m['model_id'], MODEL_ID)
        self.assertTrue(m['neff_path'].endswith('model.MODULE_297095076442530781+fad94d7c.neff'))
        self.assertEqual(m['neff_file']['file'], 'neff_171450338541704.neff')
        self.assertTrue(m['neff_file']['network_name_matches'])
        self.assertEqual(m['neff_file']['uuid'], 'f6620188117941679895f416ec8cb9b0')
        self.assertEqual([n['file'] for n in m['ntff_files']], ['profile_exec_2.ntff'])

    def test_sync_point_conversion_error_is_zero(self):
        s = self.out['clock_sync']
        self.assertEqual(s['max_abs_error_ns'], 0)
        self.assertEqual(s['sync_points'], 2)
        self.assertEqual(s['timestamps_checked'], 8)
        self.assertEqual([g['core'] for g in s['per_core']], [4, 5])

    def test_copies_cpu_and_memory(self):
        h2d = self.out['host_to_device']
        self.assertEqual(h2d['api_calls']['nrt_tensor_write']['count'], 8)
        self.assertEqual(h2d['api_calls']['nrt_tensor_write']['bytes'], 32)
        copyin = h2d['buffer_copies']['dmem_buf_copyin']
        self.assertEqual(copyin['count'], 398)
        self.assertEqual(sum(p['count'] for p in copyin['by_enclosing_call']), 398)
        cpu = self.out['cpu']
        self.assertEqual((cpu['records'], cpu['cpus'], cpu['samples_per_cpu']), (7200, 12, 600))
        self.assertEqual(cpu['records_without_utilisation'], 4758)
        self.assertAlmostEqual(cpu['max']['pct'], self.ref['cpu_max'], places=3)
        self.assertAlmostEqual(cpu['max']['pct'], 73.74, places=2)
        mem = self.out['host_memory']
        self.assertEqual((mem['min_used_bytes'], mem['max_used_bytes']), self.ref['mem'])
        self.assertEqual(mem['records'], 600)

    def test_provenance_and_quality(self):
        p = self.out['provenance']
        for key, records in [('trace_info_pb', 1), ('ntrace_pb', 1676), ('cpu_util_pb', 7200), ('host_mem_pb', 600)]:
            self.assertTrue(p['files'][key]['every_byte_consumed'], key)
            self.assertEqual(p['files'][key]['records'], records)
        self.assertEqual(p['runtime_version'], '2.30.51')
        self.assertEqual(p['trace_info']['pid'], 713479)
        self.assertEqual(p['trace_info']['event_count'], 1676)
        problems = ' '.join(q['problem'] for q in self.out['data_quality'])
        self.assertIn('exec_id 1', problems)            # warm-up gate
        self.assertIn('profile_exec_2.ntff', problems)  # NTFF names another execution


@unittest.skipUnless(os.path.isdir(CAPTURE), 'samples directory %s is absent' % SAMPLES)
class SystemPaths(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.dir = os.path.join(self.tmp, 'i-0af76a70a6d3864dd_pid_713479')
        os.mkdir(self.dir)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_path_holding_only_a_capture_dir_routes_to_the_system_summary(self):
        for name in PB_FILES:
            os.symlink(os.path.join(CAPTURE, name), os.path.join(self.dir, name))
        rc, out, err = call('summary', {'path': self.tmp})
        self.assertEqual(rc, 0, err)
        self.assertEqual(out['profile']['id'], 'rank0/system')
        self.assertEqual(out['device']['busy_ns'], 984438)
        # no NTFF here: the exec_2 caveat must not appear, the warm-up one must
        self.assertNotIn('profile_exec_2', json.dumps(out['data_quality']))

    def test_cut_ntrace_is_partial_with_the_offset(self):
        for name in PB_FILES:
            src = os.path.join(CAPTURE, name)
            if name == 'ntrace.pb':
                with open(os.path.join(self.dir, name), 'wb') as f:
                    f.write(read(src)[:100000])
            else:
                os.symlink(src, os.path.join(self.dir, name))
        rc, out, err = call('summary', {'path': self.tmp})
        self.assertEqual(rc, 0, err)
        self.assertEqual(out['status'], 'partial')
        self.assertTrue(out['partial'])
        codes = {q.get('code'): q for q in out['data_quality']}
        self.assertIn('truncated', codes)
        self.assertLess(codes['truncated']['offset'], 100000)
        self.assertIn('record_count_mismatch', codes)
        self.assertEqual(out['provenance']['files']['ntrace_pb']['bytes_consumed'], codes['truncated']['offset'])

    def test_orient_lists_the_system_profile_with_counts(self):
        rc, out, err = call('orient', {'path': CAPTURE})
        self.assertEqual(rc, 0, err)
        sys_entries = [p for p in out['profiles'] if p['kind'] == 'system']
        self.assertEqual(len(sys_entries), 1)
        e = sys_entries[0]
        self.assertEqual(e['analyses']['summary'], 'ready')
        self.assertEqual(e['counts']['events'], 1676)
        self.assertEqual(e['counts']['executions'], 1)
        self.assertEqual(e['counts']['device_cores'], 2)


if __name__ == '__main__':
    if not os.path.isdir(CAPTURE):
        print('skipping: samples directory %s is absent (set NL_SAMPLES_DIR to ../shared/samples)' % SAMPLES)
        sys.exit(77)
    unittest.main(verbosity=2)
