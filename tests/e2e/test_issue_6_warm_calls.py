"""End-to-end regression for issue 6 (warm tool calls): analyses are memoized with the cached model —
device summary, attribution groups per grouping, attribution sections per gap setting, the parsed
show-session dump per file version — and a memoized answer must be the answer.

On a deterministic export this test writes itself (a few thousand instructions on five engines, DMA
packets, active_time rows, a show-session dump with two CC-cores):
  - a second call of every tool with the same arguments returns identical structuredContent;
  - calls whose answer is ranked or paged from memos built by other calls (another metric, page size, cursor,
    CC-core, mapping) equal the answers of a fresh server that never built them;
  - concurrent first calls share one build and agree;
  - a rewritten show-session dump is parsed again (the memo is keyed by size and mtime);
  - trace-extract pages taken from the memoized row orders (every kind and sort, with and without filters,
    through the cursor at several page sizes) equal the rows this test filters and sorts itself.
Every result is validated against its tool's output schema. Run by meson (suite e2e) with NEURONLENS set
to the built binary; stdlib only.
"""
import copy
import fnmatch
import json
import os
import random
import shutil
import tempfile
import unittest

from mcp_session import Session, schema_errors

ENGINES = ['Tensor', 'Vector', 'Scalar', 'GpSimd', 'Sync']
OPCODES = ['MATMUL', 'ACTIVATE', 'TENSOR_TENSOR', 'COPY', 'IOTA', 'EVENT_SEMAPHORE', 'NOP']


def make_export(seed=6, n=3000):
    rnd = random.Random(seed)
    instr, t = [], 0
    for i in range(n):
        engine = ENGINES[i % len(ENGINES)]
        t += rnd.choice([1, 2, 3, 5, 8, 40, 3000 if i % 97 == 0 else 4])
        rec = {'timestamp': t, 'duration': rnd.randint(0, 60), 'evt_wait_time': rnd.choice([0, 0, 0, 5, 17]),
               'subgroup': engine, 'label': engine, 'opcode': rnd.choice(OPCODES), 'id': 10**15 + i,
               'layer': 'L%d' % (i * 8 // n), 'hlo_name': 'fusion.%d' % (i % 13)}
        if i % 5:
            rec['nki_source_location'] = 'kernels/attn.py:%d' % (10 + i % 37)
        if i % 11 == 0:
            rec['compiler_opcode'] = 'PSEUDO_DMA_TRIGGER'
            rec['hbm_write_bytes'] = rnd.choice([64, 256, 1024, 8192])
        else:
            rec['hbm_read_bytes'] = rnd.choice([0, 128, 4096])
            rec['sbuf_write_bytes'] = rnd.choice([0, 64])
        instr.append(rec)
    dma = []
    for i in range(400):
        dma.append({'timestamp': 10 * i, 'duration': rnd.randint(5, 50),
                    'transfer_size': rnd.choice([64, 300, 2048, 5000, 65536]),
                    'subgroup': 'q%s-Q%d-E0' % ('ABC'[i % 3], i % 3), 'queue_type': ['data', 'software_dynamic'][i % 2],
                    'variable': 'unknown' if i % 4 == 0 else 'w%d' % (i % 7), 'aggregated': 'no', 'id': 1000 + i})
    dma.append({'timestamp': 7, 'duration': 20, 'transfer_size': 9000, 'subgroup': 'qA-Q0-E0', 'queue_type': 'data',
                'variable': 'w1', 'aggregated': 'yes', 'id': 5000})
    active = [{'engine': e.lower(), 'start_ts': 100 * k, 'end_ts': 100 * k + 60, 'duration_ns': 60, 'pcore_idx': 0}
              for k, e in enumerate(ENGINES * 4)]
    return {
        'metadata': [{'first_hw_timestamp': 0, 'last_hw_timestamp': t + 100}],
        'profile_info': [{'profiler_version': 'e2e-issue-6'}],
        'summary': [{'total_time': (t + 100) / 1e9, 'cc_op_count': 20}],
        'instruction': instr, 'dma': dma, 'active_time': active,
        'semaphore_update': [{'id': '2', 'value': k, 'timestamp': 50 * k} for k in range(20)],
    }


def make_dump(layers):
    """A show-session text dump: core 4 with 2 triggers per layer plus a prologue, core 5 with fewer."""
    def section(core, times):
        lines = ['Collectives trace for CC-core %d' % core]
        for i, t in enumerate(times):
            lines.append('TPB_TRIGGER     %d  START  coll=%d cc_op=AllReduce' % (t, i))
            lines.append('TPB_TRIGGER     %d  END    coll=%d' % (t + 150, i))
        return '\n'.join(lines) + '\n\n'
    times, t = [1_000_000, 1_000_700], 1_000_700
    for k in range(layers):
        for g in ((4100, 5900) if k == 0 else (800 + 7 * k, 1200 - 3 * k)):
            t += g
            times.append(t)
    head = 'Model Name: /opt/models/e2e.neff\nTotal execution time: %d ns\n\n' % (t - times[0] + 2000)
    return head + section(4, times) + section(5, times[:len(times) // 2])


# (tool, arguments without path/profile); `path` is added per call. At least one call per tool.
CALLS = [
    ('orient', {}, 'dir'),
    ('summary', {}, 'export'),
    ('kernel-attribution', {}, 'export'),
    ('kernel-attribution', {'group_by': 'opcode'}, 'export'),
    ('kernel-attribution', {'group_by': 'layer', 'metric': 'count', 'top': 3}, 'export'),
    ('kernel-attribution', {'group_by': 'hlo', 'metric': 'dma_bytes'}, 'export'),
    ('kernel-attribution', {'group_by': 'engine', 'metric': 'wait', 'gap_min_ns': 0, 'gaps_per_engine': 5}, 'export'),
    ('trace-extract', {'kind': 'instruction', 'sort': 'duration'}, 'export'),
    ('trace-extract', {'kind': 'dma', 'sort': 'bytes', 'max_rows': 7}, 'export'),
    ('trace-extract', {'kind': 'instruction', 'engine': 'tensor', 'opcode': 'MAT*'}, 'export'),
    ('collective-gaps', {}, 'dir'),
    ('collective-gaps', {'collectives_per_layer': 1, 'max_rows': 5}, 'dump'),
    ('collective-gaps', {'cc_core': 5}, 'dump'),
]


def without_load_facts(out):
    """structuredContent minus provenance.model, which says whether *this* call read the export."""
    out = copy.deepcopy(out)
    out.get('provenance', {}).pop('model', None)
    return out


class WarmCallsIssue6(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='nl_e2e_issue6_')
        cls.export = os.path.join(cls.dir, 'profile_nc0.json')
        cls.dump = os.path.join(cls.dir, 'profile_nc0.show_session.txt')
        with open(cls.export, 'w') as f:
            json.dump(make_export(), f)
        with open(cls.dump, 'w') as f:
            f.write(make_dump(12))
        cls.sessions = []
        cls.s = cls.session()
        cls.schemas = {t['name']: t['outputSchema'] for t in cls.s.call('tools/list')['result']['tools']}

    @classmethod
    def tearDownClass(cls):
        for s in cls.sessions:
            s.__exit__(None, None, None)
        shutil.rmtree(cls.dir)

    @classmethod
    def session(cls):
        s = Session()
        s.initialize()
        cls.sessions.append(s)
        return s

    def args(self, args, where):
        a = dict(args)
        a['path'] = {'dir': self.dir, 'export': self.export, 'dump': self.dump}[where]
        return a

    def ok(self, s, tool, args):
        r = s.call('tools/call', {'name': tool, 'arguments': args}, timeout=60)['result']
        self.assertNotIn('isError', r, '%s %s: %s' % (tool, args, r['content'][0]['text']))
        out = r['structuredContent']
        self.assertEqual(schema_errors(self.schemas[tool], out), [], tool)
        return out

    def test_a_second_call_returns_identical_structured_content(self):
        self.ok(self.s, 'summary', {'path': self.export})  # the model is cached; every call below is warm
        for tool, args, where in CALLS:
            a = self.args(args, where)
            first = self.ok(self.s, tool, a)
            second = self.ok(self.s, tool, a)
            self.assertEqual(first, second, '%s %s' % (tool, args))
            self.assertNotIn(first.get('status'), ('abstained', 'not_available'), '%s %s' % (tool, args))
        first = self.ok(self.s, 'kernel-attribution', self.args({'group_by': 'source', 'top': 2}, 'export'))
        self.assertTrue(first['next_cursor'])
        page = self.args({'group_by': 'source', 'top': 2, 'cursor': first['next_cursor']}, 'export')
        self.assertEqual(self.ok(self.s, 'kernel-attribution', page), self.ok(self.s, 'kernel-attribution', page))

    def test_answers_from_other_calls_memos_equal_a_fresh_servers(self):
        warm = self.session()
        for tool, args, where in CALLS:  # build every memo, in this order
            self.ok(warm, tool, self.args(args, where))
        variants = [
            ('kernel-attribution', {'group_by': 'opcode', 'metric': 'count', 'top': 2}, 'export'),
            ('kernel-attribution', {'group_by': 'layer', 'metric': 'hbm_bytes'}, 'export'),
            ('kernel-attribution', {'metric': 'duration', 'top': 4}, 'export'),
            ('kernel-attribution', {'group_by': 'engine', 'gap_min_ns': 0, 'gaps_per_engine': 5}, 'export'),
            ('summary', {}, 'export'),
            ('orient', {}, 'dir'),
            ('collective-gaps', {'collectives_per_layer': 2, 'skip_prologue_gaps': 3, 'max_rows': 4}, 'dump'),
            ('collective-gaps', {'cc_core': 4}, 'dir'),
        ]
        for tool, args, where in variants:
            fresh = self.session()
            want = self.ok(fresh, tool, self.args(args, where))
            got = self.ok(warm, tool, self.args(args, where))
            self.assertEqual(without_load_facts(got), without_load_facts(want), '%s %s' % (tool, args))
        # a continuation page ranked from the memoized groups equals the fresh server's
        first = self.ok(warm, 'kernel-attribution', self.args({'group_by': 'source', 'metric': 'count', 'top': 3}, 'export'))
        page = self.args({'group_by': 'source', 'metric': 'count', 'top': 3, 'cursor': first['next_cursor']}, 'export')
        self.assertEqual(without_load_facts(self.ok(warm, 'kernel-attribution', page)),
                         without_load_facts(self.ok(self.session(), 'kernel-attribution', page)))

    def test_concurrent_first_calls_agree(self):
        s = self.session()
        self.ok(s, 'summary', {'path': self.export})
        for tool, args in (('kernel-attribution', {'group_by': 'layer'}), ('collective-gaps', {})):
            ids = [s.request('tools/call', {'name': tool, 'arguments': self.args(args, 'dir' if tool == 'collective-gaps'
                                                                                   else 'export')})
                   for _ in range(6)]
            got = {}
            while len(got) < len(ids):  # workers answer in any order
                msg = s.read(timeout=60)
                if msg is not None and 'method' not in msg:
                    got[msg['id']] = msg['result']
            self.assertEqual(sorted(got), sorted(ids))
            outs = [got[i] for i in ids]
            for r in outs:
                self.assertNotIn('isError', r, r['content'][0]['text'])
                self.assertEqual(r['structuredContent'], outs[0]['structuredContent'], tool)

    def test_a_rewritten_dump_is_parsed_again(self):
        d = tempfile.mkdtemp(prefix='dump_')  # not inside self.dir: a second dump there is a profile of its own
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, 'trace.show_session.txt')
        with open(path, 'w') as f:
            f.write(make_dump(5))
        s = self.session()
        self.assertEqual(self.ok(s, 'collective-gaps', {'path': path, 'max_rows': 100})['total'], 5)
        with open(path, 'w') as f:
            f.write(make_dump(9))
        self.assertEqual(self.ok(s, 'collective-gaps', {'path': path, 'max_rows': 100})['total'], 9)


    def test_trace_extract_pages_from_memoized_orders_equal_a_recomputation(self):
        export = make_export()
        s = self.session()
        self.ok(s, 'summary', {'path': self.export})
        cases = [('instruction', sort, f) for sort in ('time', 'duration', 'wait', 'bytes')
                 for f in ({}, {'engine': 'tensor'}, {'opcode': 'mat*', 'source': 'ATTN.PY:1'},
                           {'start_ns': 20000, 'end_ns': 60000}, {'min_duration_ns': 58}, {'min_wait_ns': 17})]
        cases += [('dma', sort, f) for sort in ('time', 'duration', 'bytes')
                  for f in ({}, {'engine': 'qB'}, {'min_duration_ns': 40})]
        cases += [('semaphore', 'time', {}), ('semaphore', 'time', {'start_ns': 300, 'end_ns': 700})]
        for kind, sort, filters in cases:
            want = expected_rows(export, kind, sort, filters)
            self.assertGreater(len(want), 0, (kind, sort, filters))
            for max_rows in (7, 500):
                rows, cursor = [], None
                while True:
                    args = dict(filters, path=self.export, kind=kind, sort=sort, max_rows=max_rows, columns=['row'])
                    if cursor:
                        args['cursor'] = cursor
                    out = self.ok(s, 'trace-extract', args)
                    self.assertEqual(out['total'], len(want), (kind, sort, filters))
                    rows += [r[0] for r in out['rows']]
                    cursor = out['next_cursor']
                    if not cursor:
                        break
                self.assertEqual(rows, want, (kind, sort, filters, max_rows))


def expected_rows(export, kind, sort, f):
    """The row indices trace-extract must return, filtered and ordered here from the export's own values."""
    records = export[{'instruction': 'instruction', 'dma': 'dma', 'semaphore': 'semaphore_update'}[kind]]
    out = []
    for row, r in enumerate(records):
        start, dur = r['timestamp'], r.get('duration', 0)
        end = start + max(dur, 0)
        if kind == 'dma' and 'engine' in f and f['engine'] != r['subgroup'].split('-')[0]:
            continue
        if kind == 'instruction' and 'engine' in f and f['engine'].lower() not in (r['subgroup'].lower(), r['label'].lower()):
            continue
        if 'opcode' in f and not any(fnmatch.fnmatch(x.upper(), f['opcode'].upper())
                                     for x in (r['opcode'], r.get('compiler_opcode', '')) if x):
            continue
        if 'source' in f and f['source'].lower() not in r.get('nki_source_location', '\0').lower():
            continue
        if 'start_ns' in f and not (start < f['end_ns'] and (end > f['start_ns'] or (end == start and start >= f['start_ns']))):
            continue
        if dur < f.get('min_duration_ns', 0) or r.get('evt_wait_time', 0) < f.get('min_wait_ns', 0):
            continue
        value = {'time': 0, 'duration': dur, 'wait': r.get('evt_wait_time', 0),
                 'bytes': r.get('transfer_size', 0) + sum(r.get(k, 0) for k in (
                     'hbm_read_bytes', 'hbm_write_bytes', 'sbuf_read_bytes', 'sbuf_write_bytes'))}[sort]
        out.append((-value, start, row))
    return [row for _, _, row in sorted(out)]


if __name__ == '__main__':
    unittest.main()
