"""kernel-attribution and trace-extract on the three real exports in ../shared/samples, checked against
the independent Python reference in ref_attribution.py (issue 4). One stdio session per export, so the
model is read once and every later call is warm.

Exits 77 (skipped) with the reason when the samples are absent.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'e2e'))
sys.path.insert(0, os.path.dirname(__file__))
from mcp_session import Session, schema_errors  # noqa: E402
import ref_attribution as ref  # noqa: E402

SAMPLES = os.environ.get('NL_SAMPLES_DIR', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'samples'))
EXPORT_DIR = os.path.join(SAMPLES, 'neuron-profile-json')
EXPORTS = ['profile_128x128x136', 'profile_128x128x512', 'profile_128x128x1024']


class Tools:
    """A stdio session with the tools' output schemas, calling tools and validating every result."""

    def __init__(self):
        self.s = Session()
        self.s.initialize()
        self.schemas = {t['name']: t['outputSchema'] for t in self.s.call('tools/list')['result']['tools']}

    def call(self, name, args):
        r = self.s.call('tools/call', {'name': name, 'arguments': args}, timeout=60)['result']
        if r.get('isError'):
            raise AssertionError('%s %r: %s' % (name, args, r['content'][0]['text']))
        sc = r['structuredContent']
        errs = schema_errors(self.schemas[name], sc)
        assert not errs, errs
        return sc

    def close(self):
        self.s.__exit__(None, None, None)


class AttributionOnRealExports(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.t = Tools()
        cls.data = {stem: ref.load(os.path.join(EXPORT_DIR, stem + '.json')) for stem in EXPORTS}

    @classmethod
    def tearDownClass(cls):
        cls.t.close()

    def path(self, stem):
        return os.path.join(EXPORT_DIR, stem + '.json')

    def all_groups(self, stem, group_by, metric, top=500):
        out = self.t.call('kernel-attribution', {'path': self.path(stem), 'group_by': group_by, 'metric': metric, 'top': top})
        groups = list(out['groups'])
        cursor = out['next_cursor']
        while cursor:
            page = self.t.call('kernel-attribution', {'path': self.path(stem), 'group_by': group_by, 'metric': metric,
                                                      'top': top, 'cursor': cursor})
            groups += page['groups']
            cursor = page['next_cursor']
        self.assertEqual(len(groups), out['total'])
        return out, groups

    def test_opcode_and_engine_groups_equal_the_reference(self):
        for stem, d in self.data.items():
            for by, key in [('opcode', lambda i: i['opcode']), ('engine', lambda i: i['subgroup']),
                            ('layer', lambda i: i['layer'] or None), ('hlo', lambda i: i['hlo_name'] or None)]:
                want = ref.groups(d, key)
                for metric in ['time', 'duration', 'count']:
                    out, got = self.all_groups(stem, by, metric)
                    self.assertEqual(out['group_by'], by)
                    self.assertEqual([(g['key'], g['count'], g['duration_ns'], g['evt_wait_ns']) for g in got],
                                     [(k, v['count'], v['duration_ns'], v['evt_wait_ns']) for k, v in ref.ranked(want, metric)],
                                     (stem, by, metric))
                    self.assertAlmostEqual(sum(g['share_pct'] for g in got), 100.0, places=2)

    def test_pages_of_groups_concatenate_for_every_page_size(self):
        stem = EXPORTS[0]
        _, full = self.all_groups(stem, 'opcode', 'count', top=500)
        for top in [1, 2, 3, 7]:
            _, paged = self.all_groups(stem, 'opcode', 'count', top=top)
            self.assertEqual(paged, full, top)

    def test_merged_busy_time_matches_reference_and_active_time_rows(self):
        for stem, d in self.data.items():
            out = self.t.call('kernel-attribution', {'path': self.path(stem), 'group_by': 'engine'})
            busy, active = ref.engine_busy(d), ref.active_rows(d)
            engines = out['engine_time']['engines']
            self.assertEqual(sorted(e['engine'] for e in engines), sorted(busy))
            for e in engines:
                self.assertEqual((e['merged_busy_ns'], e['busy_intervals']), busy[e['engine']], (stem, e['engine']))
                rows_ns, rows = active[e['engine'].lower()]
                self.assertEqual(e['export_active_time_ns'], rows_ns)
                self.assertLessEqual(abs(e['merged_busy_ns'] - rows_ns), rows, (stem, e['engine']))  # ≤ 1 ns per row
                ins = [i for i in d['instruction'] if i['subgroup'] == e['engine']]
                self.assertEqual(e['summed_duration_ns'], sum(i['duration'] for i in ins))
                self.assertEqual(e['instructions'], len(ins))
            for g in out['idle_gaps']:
                largest = ref.largest_gap(d, g['engine'])
                if largest > g['threshold_ns']:
                    self.assertEqual(g['largest'][0]['gap_ns'], largest, (stem, g['engine']))
                    first = g['largest'][0]
                    self.assertEqual(d['instruction'][first['after']['row']]['timestamp'], first['end_ns'])
                    b = d['instruction'][first['before']['row']]
                    self.assertEqual(b['timestamp'] + b['duration'], first['start_ns'])

    def test_no_source_locations_abstains_with_the_fix(self):
        for stem, d in self.data.items():
            self.assertEqual(ref.coverage(d)[0], 0)
            out = self.t.call('kernel-attribution', {'path': self.path(stem)})
            self.assertEqual(out['requested_group_by'], 'source')
            self.assertEqual(out['group_by'], 'opcode')
            sa = out['source_attribution']
            self.assertEqual(sa['status'], 'abstained')
            self.assertIn('NEURON_FRAMEWORK_DEBUG=1', sa['fix'])
            self.assertIn('NKI debug info', sa['fix'])
            self.assertIn('layer', sa['suggestion'])
            self.assertEqual(out['coverage']['with_source'], 0)
            self.assertEqual(out['coverage']['instructions'], len(d['instruction']))
            self.assertEqual(out['coverage']['instructions_pct'], 0)
            codes = {q.get('code') for q in out['data_quality']}
            self.assertIn('no_source_locations', codes)
            self.assertIn('evt_wait_double_counts', codes)
            self.assertIn('dge_notifications_missing', codes)
            self.assertGreater(out['total'], 0)

    def test_small_dma_equals_the_reference(self):
        for stem, d in self.data.items():
            sd = self.t.call('kernel-attribution', {'path': self.path(stem), 'group_by': 'opcode'})['small_dma']
            want = ref.small_dma(d)
            self.assertEqual(sd['packets'], want['packets'])
            self.assertEqual((sd['under_512_B']['count'], sd['under_512_B']['bytes']), (want['under_512'], want['under_512_bytes']))
            self.assertEqual((sd['under_4_KiB']['count'], sd['under_4_KiB']['bytes']), (want['under_4k'], want['under_4k_bytes']))

    def test_default_calls_stay_within_the_default_budget(self):
        for stem in EXPORTS:
            for name in ['kernel-attribution', 'trace-extract']:
                self.t.s.request('tools/call', {'name': name, 'arguments': {'path': self.path(stem)}}, id='size')
                self.t.s.response('size', timeout=60)
                self.assertLessEqual(len(self.t.s.raw[-1]), 24 * 1024, (stem, name))

    # ---- trace-extract --------------------------------------------------------------------------------

    QUERIES = [
        {},
        {'max_rows': 7},
        {'engine': 'Tensor', 'sort': 'duration', 'max_rows': 4},
        {'engine': 'tensormatrix'},
        {'opcode': '*dma*', 'sort': 'bytes', 'max_rows': 1},
        {'opcode': 'EVENT_SEM*', 'sort': 'wait', 'max_rows': 3},
        {'start_ns': 1000, 'end_ns': 200000, 'sort': 'duration', 'max_rows': 5},
        {'start_ns': 1864009, 'end_ns': 1864009, 'max_rows': 2},
        {'min_duration_ns': 20, 'sort': 'wait', 'max_rows': 6},
        {'min_wait_ns': 1, 'layer': '_DOT', 'max_rows': 2},
        {'kind': 'dma', 'max_rows': 9},
        {'kind': 'dma', 'sort': 'bytes', 'max_rows': 11},
        {'kind': 'dma', 'engine': 'qSyncSpillReload0', 'sort': 'duration', 'max_rows': 5},
        {'kind': 'dma', 'start_ns': 3000, 'end_ns': 4000, 'max_rows': 4},
        {'kind': 'semaphore', 'max_rows': 50},
        {'kind': 'semaphore', 'start_ns': 2000, 'max_rows': 13},
    ]

    def pages(self, stem, query):
        args = dict(query, path=self.path(stem), columns=['row', 'start_ns'])
        rows, total, cursor, calls = [], None, None, 0
        while True:
            a = dict(args, cursor=cursor) if cursor else args
            out = self.t.call('trace-extract', a)
            calls += 1
            total = out['total'] if total is None else total
            self.assertEqual(out['total'], total)
            self.assertEqual(out['shown'], len(out['rows']))
            self.assertLessEqual(out['shown'], query.get('max_rows', 20))
            rows += [r[0] for r in out['rows']]
            cursor = out['next_cursor']
            self.assertEqual(out['truncated'], cursor is not None)
            if not cursor:
                return rows, total, calls

    def test_trace_extract_pages_concatenate_to_the_reference_list(self):
        for stem, d in self.data.items():
            for q in self.QUERIES:
                want = ref.extract(d, **{k: v for k, v in q.items() if k not in ('max_rows',)})
                rows, total, calls = self.pages(stem, q)
                self.assertEqual(total, len(want), (stem, q))
                self.assertEqual(rows, want, (stem, q))
                self.assertGreaterEqual(calls, max(1, -(-len(want) // q.get('max_rows', 20))))

    def test_projection_values_equal_the_export(self):
        stem = EXPORTS[2]
        d = self.data[stem]
        out = self.t.call('trace-extract', {'path': self.path(stem), 'max_rows': 500,
                                            'columns': ['row', 'start_ns', 'duration_ns', 'evt_wait_ns', 'engine',
                                                        'label', 'opcode', 'compiler_opcode', 'hbm_read_bytes', 'id']})
        self.assertEqual(out['shown'], len(d['instruction']))
        for r in out['rows']:
            i = d['instruction'][r[0]]
            self.assertEqual(r[1:], [i['timestamp'], i['duration'], i['evt_wait_time'], i['subgroup'], i['label'],
                                     i['opcode'], i.get('compiler_opcode') or None, i.get('hbm_read_bytes', 0), str(i['id'])])

    def test_filters_matching_nothing_say_why(self):
        out = self.t.call('trace-extract', {'path': self.path(EXPORTS[0]), 'engine': 'gpsimd', 'opcode': 'MATMUL'})
        self.assertEqual((out['total'], out['shown'], out['rows'], out['next_cursor']), (0, 0, [], None))
        self.assertIn('engine matches 31', out['empty_reason'])
        self.assertIn('opcode matches 2', out['empty_reason'])
        out = self.t.call('trace-extract', {'path': self.path(EXPORTS[0]), 'source': 'attention.py'})
        self.assertEqual(out['total'], 0)
        self.assertIn('NEURON_FRAMEWORK_DEBUG=1', out['empty_reason'])

    def test_collective_kind_says_it_is_not_in_this_export(self):
        out = self.t.call('trace-extract', {'path': self.path(EXPORTS[0]), 'kind': 'collective'})
        self.assertEqual(out['status'], 'not_available')
        self.assertEqual(out['total'], 0)
        self.assertIn('not available in this export kind', out['abstained']['reason'])
        self.assertIn('collective-gaps', out['abstained']['fix'])


if __name__ == '__main__':
    if not os.path.isdir(EXPORT_DIR):
        print('skipped: the real exports are absent (%s); set NL_SAMPLES_DIR to ../shared/samples' % EXPORT_DIR)
        sys.exit(77)
    unittest.main()
