"""summary and orient on the real PyTorch allocator snapshots in ../shared/samples/memory-snapshot (issue 16),
checked against ref_memory_snapshot.py, an independent stdlib-Python reading (pickle.load; the test controls the
files) that shares no code with the C side. Skips (exit 77) with the reason when the samples are absent.

Per snapshot: every device's reserved / allocated / active / requested bytes, segments, blocks, the largest
free block and each pool; the peak (bytes, trace row, time, source) and the sites holding memory at it (site,
bytes, allocations, in order); OOMs; the history the snapshot kept, said in data_quality when it is not a
trace; orient lists each snapshot as a memory profile ready for summary, with its counts.
"""
import json
import os
import pickle
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'e2e'))
from mcp_session import BINARY  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import ref_memory_snapshot  # noqa: E402

SAMPLES = os.environ.get('NL_SAMPLES_DIR', '')
SNAPSHOTS = os.path.join(SAMPLES, 'memory-snapshot')


def call(tool, args):
    r = subprocess.run([BINARY, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=120)
    return r.returncode, json.loads(r.stdout) if r.stdout.strip() else None, r.stderr


def pool(p):
    return {'segments': p['segments'], 'blocks': p['blocks'], 'reserved_B': p['reserved'],
            'allocated_B': p['allocated'], 'active_B': p['active'], 'requested_B': p['requested'],
            'free_cached_B': p['reserved'] - p['allocated'], 'pending_free_B': p['pending_free'],
            'largest_free_block_B': p['largest_inactive']}


def cut(text, cap=400):
    """A cell the tool cuts: at most cap - 1 bytes, ending in '…' on a UTF-8 boundary when longer."""
    if text is None:
        return None
    b = text.encode('utf-8', 'surrogatepass')
    if len(b) < cap:
        return text
    k = cap - 4
    while k > 0 and (b[k] & 0xc0) == 0x80:
        k -= 1
    return b[:k].decode('utf-8', 'surrogatepass') + '\u2026'


def site_text(key):
    """The reference names a site 'file:line:name'; the tool 'file:line name'."""
    if key is None:
        return '(no stack recorded)'
    m = re.match(r'^(.*?):(-?\d+):(.*)$', key, re.S)  # file names may hold ':' (D:\...), names '::'
    return '%s:%s %s' % (m.group(1), m.group(2), m.group(3))


@unittest.skipUnless(SAMPLES and os.path.isdir(SNAPSHOTS), 'samples absent (NL_SAMPLES_DIR/memory-snapshot)')
class MemorySnapshots(unittest.TestCase):
    def test_summary_equals_the_independent_reading(self):
        names = sorted(n for n in os.listdir(SNAPSHOTS) if n.endswith('.pickle'))
        self.assertEqual(len(names), 5)
        for name in names:
            with self.subTest(snapshot=name):
                path = os.path.join(SNAPSHOTS, name)
                ref = ref_memory_snapshot.reference(path)
                rc, out, err = call('summary', {'path': path})
                self.assertEqual(rc, 0, err)
                self.assertEqual(out['profile']['kind'], 'memory')
                self.assertEqual(out['provenance']['layout'], ref['layout'])
                self.assertEqual(out['provenance']['history'], ref['history'])
                self.assertEqual(len(out['devices']), len(ref['devices']))
                for dev, want in zip(out['devices'], ref['devices']):
                    self.assertEqual(dev['device'], want['device'])
                    self.assertEqual(dev['total'], pool(want['total']))
                    self.assertEqual(dev['pools'], {k: pool(v) for k, v in want['pools'].items() if v['segments']})
                    self.assertEqual(dev['trace_entries'], want['trace_entries'])
                    pk, wpk = dev['peak'], want['peak']
                    self.assertEqual(pk['allocated_B'], wpk['bytes'])
                    self.assertEqual(pk['source'], wpk['source'])
                    if wpk['source'] == 'trace':
                        self.assertEqual(pk['trace_row'], wpk['row'] if wpk['row'] >= 0 else None)
                        self.assertEqual(pk['time_us'], wpk['time_us'])
                    top = [(s['site'], s['user_code'], s['bytes'], s['allocations']) for s in pk['held_by']['top']]
                    want_top = [(site_text(k), u, b, n) for k, u, _via, b, n in wpk['sites']['top'][:len(top)]]
                    self.assertEqual(top, want_top)
                    self.assertGreater(len(top), 0)
                    self.assertEqual(dev['oom_total'], want['oom_total'])
                problems = ' '.join(q['problem'] for q in out['data_quality'])
                if ref['history'] == 'none':
                    self.assertIn('no allocation history', problems)
                elif ref['history'] == 'state_only':
                    self.assertIn('history of state only', problems)
                else:
                    self.assertNotIn('history', problems)

    def test_trace_extract_kind_memory_equals_the_independent_reading(self):
        """Pages of the allocator trace, ranked and filtered here from pickle.load: rows are every
        device_traces entry device by device (entries without time_us are left out), sort bytes = (size
        descending, time, row), opcode = comma-separated action globs, min_bytes on the size."""
        cols = ['row', 'device', 'action', 'size', 'time_ns', 'site']
        acts = {'alloc', 'free_requested', 'free_completed', 'segment_alloc', 'segment_free', 'segment_map',
                'segment_unmap', 'oom', 'snapshot'}
        listed = 0
        for name in sorted(n for n in os.listdir(SNAPSHOTS) if n.endswith('.pickle')):
            with self.subTest(snapshot=name):
                path = os.path.join(SNAPSHOTS, name)
                with open(path, 'rb') as f:
                    snap = pickle.load(f)
                entries, row = [], 0
                for d, trace in enumerate(snap.get('device_traces') or []):
                    for e in trace:
                        if 'time_us' in e:
                            site = ref_memory_snapshot.site_of(ref_memory_snapshot.stack_of(e.get('frames') or []))[0]
                            action = e['action'] if e['action'] in acts else 'other'
                            entries.append([row, d, action, e.get('size'), e['time_us'] * 1000,
                                            cut(ref_memory_snapshot.skey(site))])
                        row += 1
                want = sorted((r for r in entries if r[2] in ('alloc', 'segment_alloc') and (r[3] or 0) >= 1 << 20),
                              key=lambda r: (-(r[3] or 0), r[4], r[0]))
                args = {'path': path, 'kind': 'memory', 'sort': 'bytes', 'opcode': 'alloc, segment_*',
                        'min_bytes': 1 << 20, 'max_rows': 15, 'columns': cols}
                rc, out, err = call('trace-extract', args)
                self.assertEqual(rc, 0, err)
                self.assertEqual(out['total'], len(want))
                self.assertEqual(out['rows'], want[:out['shown']])
                self.assertEqual(out['timeline']['rows'], len(entries))
                self.assertEqual(out['timeline']['left_out']['no_time'], row - len(entries))
                if out['next_cursor']:  # the second page continues the list
                    rc, out2, err = call('trace-extract', dict(args, cursor=out['next_cursor']))
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(out2['rows'], want[out['shown']:out['shown'] + out2['shown']])
                # time order, a window of the middle third, one device
                if len(entries) >= 3:
                    lo, hi = entries[0][4], entries[-1][4]
                    a, b = lo + (hi - lo) // 3, lo + 2 * (hi - lo) // 3
                    want = sorted((r for r in entries if r[1] == 0 and a <= r[4] < b), key=lambda r: (r[4], r[0]))
                    rc, out, err = call('trace-extract', {'path': path, 'kind': 'memory', 'engine': 'device0',
                                                          'start_ns': a, 'end_ns': b, 'max_rows': 10, 'columns': cols})
                    self.assertEqual(rc, 0, err)
                    self.assertEqual(out['total'], len(want))
                    self.assertEqual(out['rows'], want[:out['shown']])
                    listed += out['total']
                # what the snapshot kept is said where the list is no timeline
                said = {'none': 'no allocation history', 'state_only': 'not a timeline'}
                history = ref_memory_snapshot.reference(path)['history']
                if history in said:
                    self.assertIn(said[history], json.dumps(out['data_quality']))
                else:
                    self.assertEqual(out['data_quality'], [])
        self.assertGreater(listed, 100)

    def test_orient_lists_each_snapshot_as_a_memory_profile(self):
        rc, out, err = call('orient', {'path': SNAPSHOTS})
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(p['id'] for p in out['profiles']),
                         sorted(n for n in os.listdir(SNAPSHOTS) if n.endswith('.pickle')))
        for p in out['profiles']:
            self.assertEqual(p['kind'], 'memory')
            self.assertEqual(p['analyses']['summary'], 'ready')
            self.assertEqual(p['analyses']['trace-extract'], 'ready')
            self.assertEqual(p['rank'], 'rank0')  # no rank in the names: rank 0, as Neuron Explorer does
            ref = ref_memory_snapshot.reference(os.path.join(SNAPSHOTS, p['id']))
            self.assertEqual(p['counts']['segments'], ref['segments'])
            self.assertEqual(p['counts']['blocks'], ref['blocks'])
        self.assertEqual(out['next_calls'][0]['tool'], 'summary')


if __name__ == '__main__':
    if not (SAMPLES and os.path.isdir(SNAPSHOTS)):
        print('skipped: samples absent (NL_SAMPLES_DIR/memory-snapshot)')
        sys.exit(77)
    unittest.main(verbosity=2)
