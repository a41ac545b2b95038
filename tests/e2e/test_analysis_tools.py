"""End-to-end: trace-extract and kernel-attribution over the real binary (issue 4) on a small export this
test writes itself (no samples needed): bad input is an argument error that says what is accepted,
filters matching nothing are an empty list with the reason, cursors resume exactly, results validate
against the output schemas, and orient says both tools are ready.

Run by meson (suite e2e) with NEURONLENS set to the built binary; stdlib only.
"""
import json
import os
import shutil
import tempfile
import unittest

from mcp_session import Session, schema_errors


def instruction(t, d, w, engine, opcode, **extra):
    rec = {'timestamp': t, 'duration': d, 'evt_wait_time': w, 'subgroup': engine, 'label': engine, 'opcode': opcode,
           'id': 10**18 + t, 'layer': '', 'hlo_name': ''}
    rec.update(extra)
    return rec


EXPORT = {
    'metadata': [{'first_hw_timestamp': 0, 'last_hw_timestamp': 5000}],
    'profile_info': [{'profiler_version': 'e2e-fixture'}],
    'instruction': [
        instruction(0, 10, 0, 'Tensor', 'MATMUL', layer='L1', hbm_read_bytes=100),
        instruction(5, 10, 20, 'Vector', 'ACTIVATE', layer='L1'),
        instruction(20, 10, 0, 'Tensor', 'MATMUL', layer='L2'),
        instruction(30, 100, 0, 'Vector', 'EVENT_SEMAPHORE'),
        instruction(2030, 10, 3, 'Tensor', 'MATMUL', layer='L2'),
        instruction(2040, 5, 7, 'Scalar', 'DMA_DIRECT2D', compiler_opcode='PSEUDO_DMA_DIRECT2D', hbm_read_bytes=200),
    ],
    'dma': [
        {'timestamp': 500, 'duration': 20, 'transfer_size': 600, 'subgroup': 'qA-Q1-E0', 'queue_type': 'data',
         'variable': 'unknown', 'aggregated': 'no', 'id': 11},
        {'timestamp': 100, 'duration': 20, 'transfer_size': 100, 'subgroup': 'qA-Q1-E1', 'queue_type': 'data',
         'variable': 'unknown', 'aggregated': 'no', 'id': 12},
    ],
    'active_time': [{'engine': 'tensor', 'start_ts': 0, 'end_ts': 10, 'duration_ns': 10, 'pcore_idx': 0}],
    'semaphore_update': [{'id': '2', 'value': 1, 'timestamp': 10}],
}


class AnalysisTools(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='nl_e2e_analysis_')
        cls.path = os.path.join(cls.dir, 'profile_fixture.json')
        with open(cls.path, 'w') as f:
            json.dump(EXPORT, f)
        cls.s = Session()
        cls.s.initialize()
        cls.schemas = {t['name']: t['outputSchema'] for t in cls.s.call('tools/list')['result']['tools']}

    @classmethod
    def tearDownClass(cls):
        cls.s.__exit__(None, None, None)
        shutil.rmtree(cls.dir)

    def call(self, name, **args):
        args.setdefault('path', self.path)
        return self.s.call('tools/call', {'name': name, 'arguments': args}, timeout=30)['result']

    def ok(self, name, **args):
        r = self.call(name, **args)
        self.assertNotIn('isError', r, r['content'][0]['text'])
        sc = r['structuredContent']
        self.assertEqual(schema_errors(self.schemas[name], sc), [])
        return sc

    def error(self, name, *needles, **args):
        r = self.call(name, **args)
        self.assertIs(r.get('isError'), True, (name, args))
        self.assertNotIn('structuredContent', r)
        text = r['content'][0]['text']
        for n in needles:
            self.assertIn(n, text, (name, args))
        return text

    # ---- bad input ------------------------------------------------------------------------------------

    def test_max_rows_over_the_cap_is_an_argument_error(self):
        self.error('trace-extract', 'max_rows', max_rows=501)
        self.error('kernel-attribution', 'max_rows', max_rows=501)
        self.error('kernel-attribution', 'top', top=501)
        self.error('trace-extract', 'max_rows', max_rows=0)

    def test_inverted_and_negative_windows_are_argument_errors(self):
        self.error('trace-extract', 'end_ns', 'before start_ns', start_ns=100, end_ns=50)
        self.error('trace-extract', 'start_ns', start_ns=-1)
        self.error('trace-extract', 'end_ns', end_ns=-5)

    def test_unknown_engine_lists_the_accepted_ones(self):
        text = self.error('trace-extract', 'engine', "'pe'", 'tensor, vector, scalar, gpsimd, sync', engine='pe')
        self.assertIn('Accepted engines', text)
        self.error('trace-extract', 'qA', engine='qZ', kind='dma')

    def test_invalid_cursors_are_argument_errors(self):
        for bad in ['nope', 'te.5', 'te0123456789abcdef.zz', 'ka0000000000000000.1']:
            self.error('trace-extract', 'cursor', 'next_cursor', cursor=bad)
            self.error('kernel-attribution', 'cursor', 'next_cursor', cursor=bad)
        first = self.ok('trace-extract', max_rows=2)
        # a cursor belongs to its query: another sort or filter rejects it
        self.error('trace-extract', 'cursor', cursor=first['next_cursor'], sort='duration')
        self.error('trace-extract', 'cursor', cursor=first['next_cursor'], engine='tensor')
        # a cursor from the other tool is rejected too
        ka = self.ok('kernel-attribution', group_by='opcode', top=1)
        self.error('trace-extract', 'cursor', cursor=ka['next_cursor'])
        self.error('kernel-attribution', 'cursor', cursor=first['next_cursor'], group_by='opcode')
        self.error('kernel-attribution', 'cursor', cursor=ka['next_cursor'], group_by='layer')

    def test_unknown_columns_and_foreign_filters_say_what_is_accepted(self):
        self.error('trace-extract', 'columns', 'start_ns', 'opcode', columns=['start_ns', 'colour'])
        self.error('trace-extract', 'opcode', 'kind dma', kind='dma', opcode='X*')
        self.error('trace-extract', 'sort', 'time', kind='semaphore', sort='bytes')
        self.error('trace-extract', 'source', 'must not be empty', source='')

    def test_a_budget_below_the_envelope_says_how_much_is_needed(self):
        self.error('trace-extract', 'max_bytes', max_bytes=1024)
        self.error('kernel-attribution', 'max_bytes', max_bytes=1024)

    # ---- behaviour ------------------------------------------------------------------------------------

    def test_filters_matching_nothing_return_an_empty_list_with_the_reason(self):
        out = self.ok('trace-extract', engine='gpsimd')
        self.assertEqual((out['total'], out['shown'], out['rows'], out['truncated'], out['next_cursor']),
                         (0, 0, [], False, None))
        self.assertIn('engine matches 0', out['empty_reason'])
        out = self.ok('trace-extract', opcode='NOPE*', start_ns=0, end_ns=50)
        self.assertIn('opcode matches 0', out['empty_reason'])
        self.assertIn('window matches 4', out['empty_reason'])

    def test_pages_resume_exactly(self):
        full = self.ok('trace-extract', max_rows=500, sort='duration', columns=['row'])
        rows, cursor = [], None
        while True:
            out = self.ok('trace-extract', max_rows=1, sort='duration', columns=['row'], **({'cursor': cursor} if cursor else {}))
            rows += out['rows']
            cursor = out['next_cursor']
            if not cursor:
                break
        self.assertEqual(rows, full['rows'])
        self.assertEqual([r[0] for r in rows], [3, 0, 1, 2, 4, 5])
        again = self.ok('trace-extract', max_rows=1, sort='duration', columns=['row'])
        self.assertEqual(again['next_cursor'], self.ok('trace-extract', max_rows=1, sort='duration', columns=['row'])['next_cursor'])

    def test_ids_are_strings_and_times_relative(self):
        out = self.ok('trace-extract', columns=['id', 'start_ns', 'end_ns'], max_rows=1)
        self.assertEqual(out['rows'], [[str(10**18), 0, 10]])
        self.assertIn('ns', out['units']['time'])

    def test_kernel_attribution_reports_every_section(self):
        out = self.ok('kernel-attribution', group_by='layer', metric='duration')
        self.assertEqual(out['group_by'], 'layer')
        self.assertNotIn('source_attribution', out)
        self.assertEqual([g['key'] for g in out['groups']], [None, 'L1', 'L2'])  # 105, then a 20 ns tie by key
        tensor = [e for e in out['engine_time']['engines'] if e['engine'] == 'Tensor'][0]
        self.assertEqual((tensor['summed_duration_ns'], tensor['merged_busy_ns'], tensor['export_active_time_ns']), (30, 30, 10))
        gaps = [g for g in out['idle_gaps'] if g['engine'] == 'Tensor'][0]
        self.assertEqual(gaps['largest'][0]['gap_ns'], 2000)
        self.assertEqual((gaps['largest'][0]['before']['row'], gaps['largest'][0]['after']['row']), (2, 4))
        self.assertEqual(out['small_dma']['under_512_B'], {'count': 1, 'bytes': 100})
        # the fixture's active_time covers only the first Tensor interval: the mismatch is reported
        mismatch = [q for q in out['data_quality'] if q.get('code') == 'engine_time_mismatch']
        self.assertEqual(len(mismatch), 1)
        self.assertIn('Tensor', mismatch[0]['problem'])
        src = self.ok('kernel-attribution')
        self.assertEqual(src['source_attribution']['status'], 'abstained')
        self.assertIn('NEURON_FRAMEWORK_DEBUG=1', src['source_attribution']['fix'])

    def test_orient_says_both_tools_are_ready(self):
        out = self.ok('orient')
        analyses = out['profiles'][0]['analyses']
        self.assertEqual(analyses['trace-extract'], 'ready')
        self.assertEqual(analyses['kernel-attribution'], 'ready')

    def test_a_path_without_profiles_is_an_error(self):
        self.error('trace-extract', '/nonexistent/profile', path='/nonexistent/profile')
        self.error('kernel-attribution', '/nonexistent/profile', path='/nonexistent/profile')


if __name__ == '__main__':
    unittest.main()
