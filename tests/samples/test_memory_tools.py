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

    def test_orient_lists_each_snapshot_as_a_memory_profile(self):
        rc, out, err = call('orient', {'path': SNAPSHOTS})
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(p['id'] for p in out['profiles']),
                         sorted(n for n in os.listdir(SNAPSHOTS) if n.endswith('.pickle')))
        for p in out['profiles']:
            self.assertEqual(p['kind'], 'memory')
            self.assertEqual(p['analyses']['summary'], 'ready')
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
