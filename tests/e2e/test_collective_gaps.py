"""End-to-end: collective-gaps over the real binary (issue 4) on show-session dumps this test writes itself
from known per-layer latencies, plus the synthetic profile set of bench/nl-gen-profile when it is built.

Every expected number comes from the layer latencies the fixture was built from, recomputed by `recipe`
below (formats.md §11.1 in plain Python, independent of the C code): layers, median (the mean of the two
middle values rounded down for an even count), p90 (nearest rank), outliers (> 1.5 x median, layers >= 1).
Results are validated against the tool's output schema.

Run by meson (suite e2e) with NEURONLENS set to the built binary; stdlib only.
"""
import json
import math
import os
import shutil
import subprocess
import tempfile
import unittest

from mcp_session import Session, schema_errors

BUILD_ROOT = os.environ.get('NL_BUILD_ROOT', os.path.join(os.path.dirname(__file__), '..', '..', 'build'))


# ---- fixtures ------------------------------------------------------------------------------------------

def trigger_times(t0, prologue, layers):
    """t0, t0 + prologue, then each layer's gaps (a tuple per layer)."""
    t = [t0, t0 + prologue]
    for gaps in layers:
        for g in gaps:
            t.append(t[-1] + g)
    return t


def section(core, times, extra_events=True):
    lines = ['Collectives trace for CC-core %d' % core]
    for i, t in enumerate(times):
        lines.append('TPB_TRIGGER     %d  START  coll=%d cc_op=AllReduce' % (t, i))
        if extra_events:
            lines.append('SEMAPHORE_WAIT  %d  START  coll=%d' % (t + 20, i))
            lines.append('ALGO_MESH_REDUCE %d START coll=%d' % (t + 60, i))
            lines.append('DMA_ADVANCE     %d  START  coll=%d' % (t + 80, i))
            lines.append('TPB_TRIGGER     %d  END    coll=%d' % (t + 150, i))
    return '\n'.join(lines) + '\n\n'


def header(total_ns=None):
    lines = ['Model Name: /opt/models/decoder-tp4/model.neff']
    if total_ns is not None:
        lines.append('Total execution time: %d ns' % total_ns)
    lines += ['Tensor instructions: 4000', 'Vector instructions: 900', 'Error count: 0', '',
              'Instruction trace for ND 0 NC 4',
              '  Tensor  pc=10  id=1  S[5]  1000  START', '  Tensor  pc=10  id=1  S[5]  1400  END', '']
    return '\n'.join(lines) + '\n'


def recipe(times, a=2, p=1, k=1.5):
    """formats.md §11.1 on trigger times, in plain Python."""
    t = sorted(times)
    g = [t[i] - t[i - 1] for i in range(1, len(t))]
    n_layers = (len(g) - p) // a if len(g) > p else 0
    lat = [sum(g[p + a * j: p + a * (j + 1)]) for j in range(n_layers)]
    s = sorted(lat)
    median = (s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) // 2) if s else None
    p90 = s[math.ceil(0.9 * len(s)) - 1] if s else None
    outliers = [j for j in range(1, n_layers) if lat[j] > k * median]
    return {'latencies': lat, 'median': median, 'p90': p90, 'outliers': outliers,
            'leftover': (len(g) - p) - a * n_layers if len(g) > p else 0}


# Warm-up layer 0, eleven steady layers with small jitter, an outlier layer 7; attention / MLP split.
LAYERS = [(4100, 5900)] + [(800 + d, 1200 - d // 2) for d in (0, 10, -6, 4, 0, -8)] + [(1700, 2500)] + \
         [(800 + d, 1200 + d) for d in (6, -4, 2, 0)]
TIMES = trigger_times(1_000_000, 700, LAYERS)
TOTAL_NS = 36_000  # the dump's "Total execution time"


EXPORT = {
    'metadata': [{'first_hw_timestamp': 0, 'last_hw_timestamp': 40000}],
    'profile_info': [{'profiler_version': 'e2e-fixture'}],
    'summary': [{'total_time': 0.0000375, 'cc_op_count': 26}],
    'instruction': [],
    'dma': [{'timestamp': 5, 'duration': 20, 'transfer_size': 64, 'subgroup': 'qCC-Q1-E0', 'queue_type': 'data',
             'variable': 'unknown', 'aggregated': 'no', 'id': 1, 'is_cc_dma': 'yes'},
            {'timestamp': 9, 'duration': 20, 'transfer_size': 64, 'subgroup': 'qA-Q1-E0', 'queue_type': 'data',
             'variable': 'unknown', 'aggregated': 'no', 'id': 2, 'is_cc_dma': 'no'}],
}


class CollectiveGaps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='nl_e2e_gaps_')
        cls.s = Session()
        cls.s.initialize()
        tools = cls.s.call('tools/list')['result']['tools']
        cls.schema = next(t['outputSchema'] for t in tools if t['name'] == 'collective-gaps')

    @classmethod
    def tearDownClass(cls):
        cls.s.__exit__(None, None, None)
        shutil.rmtree(cls.dir)

    def write(self, rel, text):
        path = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        return path

    def call(self, args, tool='collective-gaps'):
        r = self.s.call('tools/call', {'name': tool, 'arguments': args}, timeout=30)['result']
        if not r.get('isError') and tool == 'collective-gaps':
            self.assertEqual(schema_errors(self.schema, r['structuredContent']), [])
            self.assertLess(len(json.dumps(r)), 24 * 1024)
        return r

    def ok(self, args):
        r = self.call(args)
        self.assertNotIn('isError', r, r['content'][0]['text'])
        return r['structuredContent']

    # -- exact numbers -----------------------------------------------------------------------------------

    def test_a_dump_path_gives_the_known_layer_latencies(self):
        path = self.write('direct/session.txt', header(TOTAL_NS) + section(0, TIMES[:5]) + section(8, TIMES))
        ref = recipe(TIMES)
        self.assertEqual(ref['latencies'][0], 10000)
        self.assertEqual(ref['latencies'][7], 4200)
        out = self.ok({'path': path, 'max_rows': 50})
        self.assertEqual(out['status'], 'complete')
        self.assertEqual(out['cc_core'], 8)
        self.assertEqual([c['cc_core'] for c in out['cc_cores']['listed']], [8, 0])
        self.assertEqual(out['cc_cores']['listed'][1]['trigger_starts'], 5)
        self.assertEqual([l['latency_ns'] for l in out['layers']], ref['latencies'])
        self.assertEqual([l['layer'] for l in out['layers']], list(range(12)))
        self.assertEqual(out['layers'][1]['gaps_ns'], list(LAYERS[1]))
        self.assertEqual(out['layers'][0]['start_ns'], TIMES[1])
        self.assertEqual(out['layers'][11]['end_ns'], TIMES[-1])
        self.assertEqual(out['median_ns'], ref['median'])
        self.assertEqual(out['p90_ns'], ref['p90'])
        self.assertEqual(out['steady_state_median_ns'], sorted(ref['latencies'][1:])[5])
        self.assertEqual([o['layer'] for o in out['outliers']], ref['outliers'])
        self.assertEqual(ref['outliers'], [7])
        self.assertTrue(out['layers'][7]['outlier'])
        self.assertTrue(out['warmup_layer']['slow'])
        self.assertTrue(out['layers'][0]['warmup'])
        self.assertEqual(out['mapping']['layers'], 12)
        self.assertEqual(out['mapping']['leftover_gaps'], 0)
        self.assertTrue(out['mapping']['consistent'])
        self.assertEqual(out['mapping']['periodicity']['confidence'], 'high')
        self.assertEqual(out['totals']['layers_sum_ns'], sum(ref['latencies']))
        self.assertEqual(out['totals']['total_time_ns'], TOTAL_NS)
        self.assertAlmostEqual(out['totals']['layers_to_total'], round(sum(ref['latencies']) / TOTAL_NS, 4))
        self.assertIn('show-session header', out['totals']['total_time_source'])
        self.assertEqual(out['total'], 12)
        self.assertEqual(out['shown'], 12)
        self.assertIs(out['truncated'], False)
        self.assertIsNone(out['next_cursor'])
        self.assertEqual(out['profile']['kind'], 'show_session')
        self.assertEqual(out['provenance']['show_session']['model_name'], '/opt/models/decoder-tp4/model.neff')
        self.assertIn('unverified_format', [q.get('code') for q in out['data_quality']])
        self.assertNotIn('raw_gaps', out)

    def test_pages_concatenate_to_every_layer_and_cursors_are_checked(self):
        layers = [(3000, 5000)] + [(700 + 13 * (i % 5), 1300 - 7 * (i % 3)) for i in range(44)]
        times = trigger_times(50, 300, layers)
        path = self.write('paged/session.txt', section(2, times, extra_events=False))
        ref = recipe(times)
        got, cursor, pages = [], None, 0
        while True:
            args = {'path': path, 'max_rows': 10}
            if cursor:
                args['cursor'] = cursor
            out = self.ok(args)
            got += [l['latency_ns'] for l in out['layers']]
            self.assertEqual(out['total'], 45)
            pages += 1
            cursor = out['next_cursor']
            self.assertEqual(out['truncated'], cursor is not None)
            if not cursor:
                break
        self.assertEqual(pages, 5)
        self.assertEqual(got, ref['latencies'])
        again = self.ok({'path': path, 'max_rows': 10})['next_cursor']
        self.assertEqual(again, self.ok({'path': path, 'max_rows': 10})['next_cursor'])  # stable
        r = self.call({'path': path, 'cursor': again, 'collectives_per_layer': 3})  # another mapping
        self.assertIs(r['isError'], True)
        self.assertIn('cursor', r['content'][0]['text'])
        r = self.call({'path': path, 'cursor': 'bogus'})
        self.assertIs(r['isError'], True)
        self.assertIn('cursor', r['content'][0]['text'])

    # -- irregular cases -------------------------------------------------------------------------------------

    def test_a_missing_trigger_makes_the_mapping_inconsistent_and_shows_raw_gaps(self):
        times = list(TIMES)
        del times[2 + 2 * 5]  # the trigger between the two gaps of layer 5
        path = self.write('missing/session.txt', section(8, times))
        out = self.ok({'path': path, 'max_rows': 50})
        ref = recipe(times)
        self.assertEqual(out['status'], 'inconsistent')
        self.assertFalse(out['mapping']['consistent'])
        self.assertEqual(out['mapping']['leftover_gaps'], ref['leftover'])
        self.assertEqual(out['mapping']['leftover_gaps'], 1)
        self.assertIn('leftover_gaps', out['mapping']['broken_by'])
        self.assertEqual([l['latency_ns'] for l in out['layers']], ref['latencies'])
        raw = out['raw_gaps']
        gaps = [b - a for a, b in zip(times, times[1:])]
        self.assertEqual([g['ns'] for g in raw['gaps']], gaps)
        self.assertEqual(raw['gaps'][0]['role'], 'prologue')
        self.assertEqual(raw['gaps'][-1]['role'], 'leftover')
        self.assertEqual(out['irregular_gaps']['listed'][0]['gap'], 12)  # the merged gap (800 + 1200)
        self.assertIn('leftover_gaps', [q.get('code') for q in out['data_quality']])
        self.assertIn('INCONSISTENT', self.call({'path': path})['content'][0]['text'])

    def test_an_extra_prologue_collective_is_fixed_with_skip_prologue_gaps(self):
        times = sorted(TIMES + [TIMES[0] + 200])
        path = self.write('extra/session.txt', section(8, times))
        out = self.ok({'path': path})
        self.assertEqual(out['status'], 'inconsistent')
        out = self.ok({'path': path, 'skip_prologue_gaps': 2, 'max_rows': 50})
        self.assertEqual(out['status'], 'complete')
        self.assertEqual([l['latency_ns'] for l in out['layers']], recipe(TIMES)['latencies'])
        self.assertEqual(out['skip_prologue_gaps'], 2)

    def test_cc_core_forces_the_core_and_an_unknown_one_is_an_argument_error(self):
        small = trigger_times(0, 100, [(1000, 500), (1100, 450)])
        path = self.write('forced/session.txt', section(8, TIMES) + section(3, small))
        out = self.ok({'path': path, 'cc_core': 3})
        self.assertEqual(out['cc_core'], 3)
        self.assertIn('forced', out['cc_core_choice'])
        self.assertEqual([l['latency_ns'] for l in out['layers']], [1500, 1550])
        r = self.call({'path': path, 'cc_core': 5})
        self.assertIs(r['isError'], True)
        self.assertIn('cc_core', r['content'][0]['text'])
        self.assertIn('8 (26)', r['content'][0]['text'])

    def test_collectives_per_layer_three(self):
        layers = [(900, 400, 700)] * 6
        t = [0, 250]
        for g in layers:
            for x in g:
                t.append(t[-1] + x)
        path = self.write('three/session.txt', section(1, t, extra_events=False))
        out = self.ok({'path': path, 'collectives_per_layer': 3})
        self.assertEqual([l['latency_ns'] for l in out['layers']], [2000] * 6)
        self.assertEqual(out['layers'][2]['gaps_ns'], [900, 400, 700])
        out = self.ok({'path': path})  # the default A = 2 does not fit
        self.assertEqual(out['mapping']['periodicity']['better_period'], 3)
        self.assertEqual(out['status'], 'inconsistent')

    # -- found through the catalog ---------------------------------------------------------------------------

    def test_a_dump_next_to_an_export_is_found_and_orient_says_ready(self):
        d = os.path.join(self.dir, 'withexport')
        self.write('withexport/profile_exec_2.json', json.dumps(EXPORT))
        self.write('withexport/profile_exec_2.show_session.txt', section(8, TIMES))
        o = self.call({'path': d}, tool='orient')['structuredContent']
        prof = [p for p in o['profiles'] if p['kind'] == 'device']
        self.assertEqual(len(prof), 1)
        self.assertEqual(prof[0]['analyses']['collective-gaps'], 'ready')
        out = self.ok({'path': d, 'max_rows': 50})
        self.assertEqual(out['profile']['id'], prof[0]['id'])
        self.assertEqual(out['provenance']['files']['show_session_text'], 'profile_exec_2.show_session.txt')
        self.assertEqual([l['latency_ns'] for l in out['layers']], recipe(TIMES)['latencies'])
        self.assertEqual(out['totals']['total_time_ns'], 37500)  # the export's summary.total_time, no header here
        self.assertIn('full JSON export', out['totals']['total_time_source'])
        # the export file itself as the path finds the same dump
        out2 = self.ok({'path': os.path.join(d, 'profile_exec_2.json'), 'max_rows': 50})
        self.assertEqual(out2['layers'], out['layers'])

    def test_a_dump_in_the_rank_directory_belongs_to_the_rank_profile(self):
        d = os.path.join(self.dir, 'capture')
        self.write('capture/i-0abc_pid_77/sub/profile_exec_2.json', json.dumps(EXPORT))
        self.write('capture/i-0abc_pid_77/session_trace.txt', section(8, TIMES))
        out = self.ok({'path': d})
        self.assertEqual(out['profile']['id'], 'rank0/sub/profile_exec_2')
        self.assertEqual(out['profile']['rank'], 'rank0')
        self.assertEqual(out['provenance']['files']['show_session_text'], 'i-0abc_pid_77/session_trace.txt')

    def test_dumps_are_matched_to_profiles_by_file_stem(self):
        d = os.path.join(self.dir, 'stems')
        other = trigger_times(0, 100, [(1000, 500), (1100, 450)])
        self.write('stems/profile_exec_2.json', json.dumps(EXPORT))
        self.write('stems/profile_exec_3.json', json.dumps(EXPORT))
        self.write('stems/profile_exec_2_trace.txt', section(8, TIMES))
        self.write('stems/profile_exec_3.show_session.txt', section(8, other))
        r = self.call({'path': d})
        self.assertIs(r['isError'], True)
        self.assertIn('pass "profile" with one of: profile_exec_2 (device), profile_exec_3 (device)', r['content'][0]['text'])
        out = self.ok({'path': d, 'profile': 'profile_exec_3'})
        self.assertEqual(out['provenance']['files']['show_session_text'], 'profile_exec_3.show_session.txt')
        self.assertEqual([l['latency_ns'] for l in out['layers']], [1500, 1550])
        out = self.ok({'path': d, 'profile': 'profile_exec_2', 'max_rows': 50})
        self.assertEqual([l['latency_ns'] for l in out['layers']], recipe(TIMES)['latencies'])
        r = self.call({'path': d, 'profile': 'nope'})
        self.assertIs(r['isError'], True)
        self.assertIn('profile_exec_3', r['content'][0]['text'])

    def test_an_export_without_a_dump_abstains_with_the_command(self):
        d = os.path.join(self.dir, 'exportonly')
        self.write('exportonly/profile_exec_2.json', json.dumps(EXPORT))
        o = self.call({'path': d}, tool='orient')['structuredContent']
        self.assertEqual(o['profiles'][0]['analyses']['collective-gaps'], 'unsupported')
        self.assertEqual(o['next_calls'][0]['tool'], 'summary')  # ready for summary; collective-gaps would abstain
        out = self.ok({'path': d})
        self.assertEqual(out['status'], 'abstained')
        self.assertEqual(out['layers'], [])
        self.assertEqual(out['total'], 0)
        self.assertIn('is_cc_dma', out['abstained']['reason'])
        self.assertIn('show-session -s', out['abstained']['fix'])
        self.assertIn('--show-trace', out['abstained']['fix'])
        self.assertEqual(out['export_collectives'], {'file': 'profile_exec_2.json', 'cc_op_count': 26,
                                                     'is_cc_dma_records': 1})
        self.assertIn('abstained', self.call({'path': d})['content'][0]['text'])

    def test_dumps_without_collectives_abstain(self):
        path = self.write('nocc/session.txt', header(5000))
        out = self.ok({'path': path})
        self.assertEqual(out['status'], 'abstained')
        self.assertIn('--show-trace', out['abstained']['reason'])
        path = self.write('jdump/session.json', json.dumps(
            {'Name': 'm.neff', 'NeffNodes': [{'NodeInfo': {'Graphs': [{'NC': 0, 'CycleCount': 10}]}}]}))
        out = self.ok({'path': path})
        self.assertEqual(out['status'], 'abstained')
        self.assertIn('-j', out['abstained']['reason'])
        path = self.write('tp1/session.txt', 'Collectives trace for CC-core 0\nSEMAPHORE_WAIT 100 START\n')
        out = self.ok({'path': path})
        self.assertEqual(out['status'], 'abstained')
        self.assertIn('kernel-attribution', out['abstained']['fix'])

    def test_a_malformed_dump_is_an_error_naming_file_and_offset(self):
        path = self.write('bad/session.txt', b'Collectives trace for CC-core 8\nTPB_TRIGGER 10 START\nTPB\x00 20 START\n')
        r = self.call({'path': path})
        self.assertIs(r['isError'], True)
        self.assertNotIn('structuredContent', r)
        self.assertIn('byte 56', r['content'][0]['text'])
        self.assertIn('session.txt', r['content'][0]['text'])
        r = self.call({'path': path, 'collectives_per_layer': 0})
        self.assertIs(r['isError'], True)
        self.assertIn('collectives_per_layer', r['content'][0]['text'])

    # -- the synthetic profile generator ---------------------------------------------------------------------

    def test_the_generator_profile_gives_its_expected_latencies(self):
        gen = os.path.join(BUILD_ROOT, 'bench', 'nl-gen-profile')
        if not os.access(gen, os.X_OK):
            self.skipTest('bench/nl-gen-profile is not built in %s (bench/ is another issue)' % BUILD_ROOT)
        out_dir = os.path.join(self.dir, 'gen')
        subprocess.run([gen, '--out', out_dir, '--layers', '6', '--cores', '2', '--quiet'], check=True, timeout=120)
        with open(os.path.join(out_dir, 'expected.json')) as f:
            exp = json.load(f)
        layers = exp['layers']
        for args in ({'path': os.path.join(out_dir, 'show_session_trace.txt')}, {'path': out_dir}):
            args['max_rows'] = 100
            out = self.ok(args)
            self.assertEqual(out['status'], 'complete', out['data_quality'])
            self.assertEqual(out['cc_core'], exp['collectives']['selected_cc_core'])
            self.assertEqual([l['latency_ns'] for l in out['layers']], layers['latency_ns'])
            self.assertEqual(out['median_ns'], math.floor(layers['median_latency_ns']))
            self.assertEqual(out['steady_state_median_ns'], math.floor(layers['median_latency_excluding_warmup_ns']))
            if layers.get('outlier_layer') is not None:
                self.assertIn(layers['outlier_layer'], [o['layer'] for o in out['outliers']])
            self.assertTrue(out['warmup_layer']['slow'])
            core = next(c for c in exp['cores'] if c['nc'] == exp['collectives']['selected_nc'])
            self.assertEqual(out['totals']['total_time_ns'], core['total_time_ns'])
            starts = {c['cc_core']: c['tpb_trigger_starts'] for c in exp['collectives']['cc_cores']}
            self.assertEqual({c['cc_core']: c['trigger_starts'] for c in out['cc_cores']['listed']}, starts)


if __name__ == '__main__':
    unittest.main(verbosity=2)
