#!/usr/bin/env python3
"""Tests for bench/nl-gen-profile, the deterministic synthetic profile generator.

The generator's expected.json is its own claim; every check here recomputes the numbers independently
from the written files (instruction and DMA records, active_time, summary, summary-json, show-session
text and -j JSON) and compares them with that claim, with each other and with the formats.md rules.
Busy time follows the real exports: the union of each engine's instruction intervals without
EVENT_SEMAPHORE (its duration is blocked time), zero-length instructions kept as zero-length rows.
The library checks (nl-gen-write-check, next to the generator) run too when built.
The capture (--capture, --ranks, --executions) and Kineto (--kineto) outputs are decoded independently: the
.pb streams with the small protobuf decoder below, trace.json with json (ts/dur as Decimal), and every
per-rank claim of expected.json is recomputed from them, including the host↔device join between the two.
Stdlib only. Usage: test_gen_profile.py [GENERATOR]; otherwise $NL_GEN_PROFILE or
$NL_BUILD_ROOT/bench/nl-gen-profile.
"""
import collections
import decimal
import filecmp
import glob
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import unittest

GEN = None

# formats.md §4.2: keys present on every instruction record, and the sparse ones.
ALWAYS = {'activation_fn', 'bir_id', 'bir_instruction_name', 'crc_in', 'crc_out', 'duration', 'evt_wait_time',
          'fully_qualified_subgraph', 'hlo_attrs', 'hlo_name', 'id', 'instruction_type', 'label', 'layer',
          'opcode', 'operands', 'pc', 'penguin_id', 'raw_bir_id', 'raw_penguin_id', 'subgroup', 'timestamp'}
SPARSE = {'compiler_opcode', 'compiler_operands', 'compiler_pc', 'elements', 'hbm_read_bytes', 'hbm_write_bytes',
          'sbuf_read_bytes', 'sbuf_write_bytes', 'psum_read_bytes', 'psum_write_bytes',
          'psum_read_sbuf_write_bytes', 'is_psum_read_sbuf_write', 'spill_save_bytes', 'spill_reload_bytes',
          'weight_queue_bytes', 'predecessors', 'raw_framework_id', 'raw_hlo_id', 'trigger',
          'nki_source_location'}
REAL_ARRAYS = {'metadata', 'warnings', 'instruction', 'ham', 'summary_group_order', 'dma_queues_info',
               'instruction_usage', 'summary', 'layer_summary', 'profile_info', 'semaphore_update', 'dma',
               'dma_throughput', 'terminology', 'neff_node', 'pending_dma', 'active_time', 'summary_groups',
               'neff_header', 'model_info', 'nc_mem_usage'}
ENGINES = ['tensor', 'vector', 'scalar', 'gpsimd', 'sync']
WAIT_OPCODE = 'EVENT_SEMAPHORE'  # exactly this opcode; EVENT_SEMAPHORE_RANGE_CLEAR counts as busy
OUTLIER_K = 1.5  # neuronlens gaps: a layer >= 1 is an outlier above 1.5 x the median of all layers
PEAK = 2.0 * 128 * 128 * 2.8 * 1e9
HBM_BW = 410e9


def generator():
    if len(sys.argv) > 1:
        return sys.argv[1]
    if os.environ.get('NL_GEN_PROFILE'):
        return os.environ['NL_GEN_PROFILE']
    return os.path.join(os.environ.get('NL_BUILD_ROOT', 'build'), 'bench', 'nl-gen-profile')


def run_gen(out, *args):
    subprocess.run([GEN, '--out', out, '--quiet', *args], check=True, timeout=120)


def load(path):
    with open(path, 'rb') as f:
        return json.load(f)


def merge(intervals, keep_empty=False):
    """Union of [s, e) intervals in start order: overlapping or touching ones merge. Empty ones are dropped,
    or with keep_empty (the active_time rule of the real exports) absorbed by a span that covers or touches
    them and otherwise kept as zero-length pieces."""
    out = []
    for s, e in sorted(iv for iv in intervals if iv[1] > iv[0] or (keep_empty and iv[1] == iv[0])):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def union_len(intervals):
    return sum(e - s for s, e in merge(intervals))


def busy_instructions(ins):
    """The instructions that count as engine activity (active_time, instruction time)."""
    return [r for r in ins if r['opcode'] != WAIT_OPCODE]


def median(values):
    v = sorted(values)
    n = len(v)
    return float(v[n // 2]) if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def llround(x):
    return int(math.floor(x + 0.5))


def size_class(n):
    return 'lt512' if n < 512 else 'lt4096' if n < 4096 else 'ge4096'


def recipe_latencies(starts, per_layer=2):
    """formats.md §11.1: layer K = g(2+A·K) + … + g(1+A·(K+1)), gaps numbered from 1."""
    t = sorted(starts)
    g = [None] + [t[i + 1] - t[i] for i in range(len(t) - 1)]
    layers = (len(t) - 2) // per_layer
    return [sum(g[i] for i in range(2 + per_layer * k, 2 + per_layer * (k + 1))) for k in range(layers)]


def parse_trace(path):
    """Lenient show-session --show-trace parser: sections by regex, fields by whitespace."""
    cores, cc = {}, collections.defaultdict(list)
    section, cur = None, None
    with open(path) as f:
        for line in f:
            m = re.match(r'Instruction trace for ND (\d+) NC (\d+)', line)
            if m:
                section, cur = ('instr', int(m.group(2))), int(m.group(2))
                continue
            m = re.match(r'Collectives trace for CC-core (\d+)', line)
            if m:
                section = ('cc', int(m.group(1)))
                cc[section[1]]  # a section may be empty
                continue
            m = re.match(r'ND (\d+) NC (\d+)', line)
            if m:
                cur = int(m.group(2))
                cores[cur] = {'starts': [], 'ends': 0, 'counts': {}}
                section = None
                continue
            m = re.match(r'\s*(\w+): (\d+)\s*$', line)
            if m and section is None and cur is not None:
                cores[cur]['counts'][m.group(1)] = int(m.group(2))
                continue
            m = re.match(r'Total execution time \(ns\): (\d+)', line)
            if m:
                cores[cur]['total_ns'] = int(m.group(1))
                continue
            f5 = line.split()
            if section and section[0] == 'instr' and len(f5) >= 6:
                if f5[5] == 'START':
                    cores[section[1]]['starts'].append((int(f5[4]), f5[1], f5[2]))
                elif f5[5] == 'END':
                    cores[section[1]]['ends'] += 1
            elif section and section[0] == 'cc' and re.match(r'[A-Z_]+ \d+ (START|END)\b', line):
                cc[section[1]].append((f5[0], int(f5[1]), f5[2]))
    return cores, cc


def successor_hit_rate(records):
    """How often key K is followed by K's most common successor, over all adjacent key pairs of the records:
    1.0 for one fixed order (or rotations of it), ~1/keys for uniform shuffles."""
    succ = collections.defaultdict(collections.Counter)
    for r in records:
        keys = list(r)
        for a, b in zip(keys, keys[1:]):
            succ[a][b] += 1
    pairs = sum(sum(c.values()) for c in succ.values())
    return sum(c.most_common(1)[0][1] for c in succ.values()) / pairs if pairs else 0.0


def rotations(order):
    return {order[i:] + order[:i] for i in range(len(order))}


class GeneratedSet:
    """One generator run, parsed once."""

    def __init__(self, out, args):
        self.out, self.args = out, args
        run_gen(out, *args)
        self.expected = load(os.path.join(out, 'expected.json'))
        self.exports = [load(os.path.join(out, f)) for f in self.expected['files']['exports']]
        self.summaries = [load(os.path.join(out, f)) for f in self.expected['files']['summary_json']]


class GenProfileTest(unittest.TestCase):
    tmp = None
    main = None  # default sizes, seed 11
    lean = None  # --missing-dge --no-source, 2 layers, 1 core

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix='nl-gen-test-')
        cls.main = GeneratedSet(os.path.join(cls.tmp.name, 'main'), ['--seed', '11'])
        cls.lean = GeneratedSet(os.path.join(cls.tmp.name, 'lean'),
                                ['--seed', '5', '--layers', '2', '--cores', '1', '--instructions-per-layer', '200',
                                 '--missing-dge', '--no-source'])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def sets(self):
        return [self.main, self.lean]

    def cores(self):
        for gs in self.sets():
            for exp_core, export, summ in zip(gs.expected['cores'], gs.exports, gs.summaries):
                yield gs, exp_core, export, summ

    # ---- determinism and labelling ----

    def test_same_seed_and_arguments_give_identical_bytes(self):
        again = os.path.join(self.tmp.name, 'again')
        run_gen(again, '--seed', '11')
        names = sorted(os.listdir(self.main.out))
        self.assertEqual(names, sorted(os.listdir(again)))
        match, mismatch, errors = filecmp.cmpfiles(self.main.out, again, names, shallow=False)
        self.assertEqual((mismatch, errors), ([], []))

    def test_other_seed_gives_other_profile(self):
        other = os.path.join(self.tmp.name, 'other')
        run_gen(other, '--seed', '12')
        self.assertFalse(filecmp.cmp(os.path.join(self.main.out, 'profile_nc0.json'),
                                     os.path.join(other, 'profile_nc0.json'), shallow=False))

    def test_every_output_is_marked_synthetic(self):
        for gs, ec, ex, _ in self.cores():
            syn = ex['neuronlens_synthetic'][0]
            self.assertEqual(syn['generator'], 'nl-gen-profile')
            self.assertEqual(syn['seed'], gs.expected['seed'])
            self.assertIn('synthetic', syn['note'])
            self.assertTrue(ex['profile_info'][0]['profile_name'].startswith('SYNTHETIC neuronlens demo'))
            self.assertTrue(ex['metadata'][0]['is_simulation'])
        self.assertTrue(self.main.expected['synthetic'])
        with open(os.path.join(self.main.out, 'show_session_trace.txt')) as f:
            self.assertIn('SYNTHETIC', f.readline())

    # ---- key orders: the real exports are written from Go maps (gen_export_order.c) ----

    def test_records_list_their_keys_in_varying_orders(self):
        """Each record lists its keys in its own order, like the real exports: the 22-32 keys of instruction
        and dma records come out in nearly all different orders, a record of up to 8 keys (one Go bucket) as
        one of the rotations of a single order, all of which occur; the 21 arrays in another order per core."""
        for gs, _, ex, _ in self.cores():
            for name in ('instruction', 'dma'):
                orders = {tuple(r) for r in ex[name]}
                self.assertGreater(len(orders), 0.95 * len(ex[name]), name)
            self.assertGreater(len({tuple(r) for r in ex['neff_node']}), len(ex['neff_node']) // 2)
            for name in ('active_time', 'semaphore_update', 'pending_dma'):
                orders = {tuple(r) for r in ex[name]}
                self.assertEqual(orders, rotations(next(iter(orders))), name)
            for r in ex['instruction']:
                for p in r.get('predecessors', []):
                    self.assertEqual(list(p), ['id', 'type'])  # Go structs keep their field order
        for gs in self.sets():
            for ex in gs.exports:
                self.assertEqual(list(ex)[0], 'neuronlens_synthetic')  # the marker stays first, as written
                self.assertEqual(list(ex['neuronlens_synthetic'][0])[:2], ['generator', 'seed'])
        a, b = self.main.exports
        self.assertNotEqual(list(a), list(b))
        for name in ('metadata', 'neff_header', 'model_info', 'profile_info'):  # same keys, other order
            self.assertNotEqual(list(a[name][0]), list(b[name][0]), name)
        self.assertNotEqual(list(a['summary'][0]), list(self.main.summaries[0].values())[0])
        with open(os.path.join(self.main.out, 'profile_nc0.json'), 'rb') as f:
            self.assertTrue(f.read(64).startswith(b'{"neuronlens_synthetic":[{"generator":"nl-gen-profile",'))

    def test_key_successors_are_as_unpredictable_as_in_real_exports(self):
        """A reader's branch prediction sees key order: in instruction and dma records a key is followed by
        its most common successor in ~15-20% of places (the real samples: 12-14%; one fixed order: 100%)."""
        real = sorted(glob.glob(os.path.join(os.environ.get('NL_SAMPLES_DIR', ''), 'neuron-profile-json', '*.json')))
        for name in ('instruction', 'dma'):
            for _, _, ex, _ in self.cores():
                self.assertLess(successor_hit_rate(ex[name]), 0.35, name)
            for path in real:
                self.assertLess(successor_hit_rate(load(path)[name]), 0.35, (path, name))

    def test_key_orders_are_fixed_by_the_seed(self):
        again = os.path.join(self.tmp.name, 'lean-again')
        run_gen(again, *self.lean.args)
        names = sorted(os.listdir(self.lean.out))
        match, mismatch, errors = filecmp.cmpfiles(self.lean.out, again, names, shallow=False)
        self.assertEqual((mismatch, errors), ([], []))
        self.assertIn('profile_nc0.json', match)

    # ---- record shapes ----

    def test_export_has_the_real_arrays_and_key_sets(self):
        for _, _, ex, _ in self.cores():
            self.assertEqual(set(ex) - {'neuronlens_synthetic'}, REAL_ARRAYS)
            for r in ex['instruction']:
                self.assertTrue(ALWAYS <= set(r), ALWAYS - set(r))
                self.assertTrue(set(r) <= ALWAYS | SPARSE, set(r) - ALWAYS - SPARSE)
            for r in ex['dma']:
                self.assertIn(r['aggregated'], ('yes', 'no'))
                self.assertEqual('packet_idx' in r, r['aggregated'] == 'no')
                self.assertEqual('dest_sb_partitions' in r, r['aggregated'] == 'yes')

    def test_key_sets_match_a_real_export_when_samples_are_present(self):
        sample = os.path.join(os.environ.get('NL_SAMPLES_DIR', ''), 'neuron-profile-json',
                              'profile_128x128x136.json')
        if not os.path.exists(sample):
            self.skipTest('real sample not found (NL_SAMPLES_DIR unset or samples absent)')
        real = load(sample)
        ex = self.main.exports[0]
        keys = lambda recs: set().union(*(r.keys() for r in recs)) if recs else set()
        self.assertEqual(keys(ex['instruction']) - {'nki_source_location'}, keys(real['instruction']))
        for agg in ('yes', 'no'):
            self.assertEqual(keys(r for r in ex['dma'] if r['aggregated'] == agg),
                             keys(r for r in real['dma'] if r['aggregated'] == agg))
        self.assertEqual(set(ex['summary'][0]), set(real['summary'][0]))
        for name in ('metadata', 'profile_info', 'model_info', 'neff_header', 'active_time', 'layer_summary',
                     'semaphore_update', 'dma_queues_info', 'neff_node'):
            self.assertEqual(keys(ex[name]), keys(real[name]), name)

    def test_value_types_follow_the_export(self):
        for _, _, ex, _ in self.cores():
            for r in ex['instruction']:
                for k in ('timestamp', 'duration', 'id', 'pc', 'evt_wait_time', 'raw_bir_id', 'crc_in'):
                    self.assertIs(type(r[k]), int, k)
                for k in ('label', 'subgroup', 'opcode', 'operands', 'layer', 'hlo_name', 'hlo_attrs'):
                    self.assertIs(type(r[k]), str, k)
                if r['hlo_attrs']:
                    self.assertIsInstance(json.loads(r['hlo_attrs']), list)
            for r in ex['dma']:
                for k in ('dma_engine', 'dma_queue', 'aggregated', 'duplicate', 'is_cc_dma', 'semaphore_id'):
                    self.assertIs(type(r[k]), str, k)
                self.assertIsInstance(r['source'][0], list)
            s = ex['summary'][0]
            self.assertIs(type(s['total_time']), float)
            self.assertTrue(all(0.0 <= s[k] <= 1.0 for k in s if k.endswith('_percent')))

    def test_ids_are_unique_uint64_some_beyond_2_53(self):
        for _, _, ex, _ in self.cores():
            ids = [r['id'] for r in ex['instruction']] + [r['id'] for r in ex['dma']]
            self.assertEqual(len(ids), len(set(ids)))
            self.assertTrue(all(0 <= i < 2 ** 64 for i in ids))
            self.assertTrue(any(i > 2 ** 53 for i in ids))
            self.assertTrue(any(i < 2 ** 53 for i in ids))

    # ---- instructions ----

    def test_instructions_sorted_and_counts_match_expected_and_model_info(self):
        for _, ec, ex, _ in self.cores():
            ins = ex['instruction']
            self.assertEqual([r['timestamp'] for r in ins], sorted(r['timestamp'] for r in ins))
            exp = ec['instructions']
            self.assertEqual(len(ins), exp['count'])
            by_eng = collections.defaultdict(lambda: [0, 0])
            by_op = collections.defaultdict(lambda: [0, 0])
            by_label = collections.defaultdict(lambda: [0, 0])
            by_eng_op = collections.defaultdict(lambda: [0, 0])
            for r in ins:
                e = r['subgroup'].lower()
                for table, key in ((by_eng, e), (by_op, r['opcode']), (by_label, r['label']),
                                   (by_eng_op, (e, r['opcode']))):
                    table[key][0] += 1
                    table[key][1] += r['duration']
            mi = ex['model_info'][0]
            for e in ENGINES:
                self.assertEqual(by_eng[e], [exp['by_engine'][e]['count'], exp['by_engine'][e]['duration_sum_ns']])
                self.assertEqual(mi[e + '_engine_instruction_count'], by_eng[e][0])
            self.assertEqual({k: v for k, v in by_op.items()},
                             {k: [v['count'], v['duration_sum_ns']] for k, v in exp['by_opcode'].items()})
            self.assertEqual({k: v for k, v in by_label.items()},
                             {k: [v['count'], v['duration_sum_ns']] for k, v in exp['by_label'].items()})
            flat = {(e, op): [v['count'], v['duration_sum_ns']]
                    for e, ops in exp['by_engine_opcode'].items() for op, v in ops.items()}
            self.assertEqual(dict(by_eng_op), flat)
            self.assertEqual({r['label'] for r in ins} >= {'Tensor', 'TensorMatrix', 'Vector', 'Scalar', 'GpSimd',
                                                           'Sync'}, True)
            trig = [r for r in ins if r.get('compiler_opcode') == 'PSEUDO_DMA_TRIGGER']
            self.assertTrue(trig and all(r['opcode'] == 'WRITE' for r in trig))

    def test_active_time_rows_are_the_union_without_event_semaphore(self):
        for _, ec, ex, _ in self.cores():
            s = ex['summary'][0]
            for e in ENGINES:
                mine = [r for r in ex['instruction'] if r['subgroup'].lower() == e]
                iv = [(r['timestamp'], r['timestamp'] + r['duration']) for r in busy_instructions(mine)]
                merged = merge(iv, keep_empty=True)
                recs = [[r['start_ts'], r['end_ts']] for r in ex['active_time'] if r['engine'] == e]
                self.assertEqual(merged, recs, e)
                self.assertTrue(all(r['duration_ns'] == r['end_ts'] - r['start_ts'] for r in ex['active_time']))
                busy = sum(b - a for a, b in merged)
                by = ec['instructions']['by_engine'][e]
                self.assertEqual(busy, by['busy_ns'])
                self.assertEqual(busy, union_len(iv))
                self.assertEqual(len(recs), by['active_time_records'])
                self.assertEqual(sum(1 for a, b in recs if a == b), by['zero_length_active_time_records'])
                instr_time = sum(b - a for a, b in iv)
                self.assertEqual(instr_time, by['instruction_time_ns'])
                self.assertEqual(sum(r['duration'] for r in mine), by['duration_sum_ns'])
                self.assertEqual(s[e + '_engine_active_time'], busy / 1e9)
                self.assertEqual(s[e + '_engine_instruction_time'], instr_time / 1e9)
                self.assertEqual(s[e + '_engine_instruction_count'], len(mine))
                # formats.md 5.1: E_engine_instruction_time >= E_engine_active_time
                self.assertLessEqual(s[e + '_engine_active_time'], s[e + '_engine_instruction_time'])
            tensor = ec['instructions']['by_engine']['tensor']
            self.assertLess(tensor['busy_ns'], tensor['instruction_time_ns'])  # Tensor/TensorMatrix overlap

    def test_event_semaphore_waits_are_not_busy_but_range_clears_are(self):
        for _, ec, ex, _ in self.cores():
            rows = collections.defaultdict(list)
            for r in ex['active_time']:
                rows[r['engine']].append((r['start_ts'], r['end_ts']))
            covered = lambda e, a, b: any(s <= a and b <= t for s, t in rows[e])
            waits = [r for r in ex['instruction'] if r['opcode'] == WAIT_OPCODE]
            clears = [r for r in ex['instruction'] if r['opcode'] == 'EVENT_SEMAPHORE_RANGE_CLEAR']
            self.assertTrue(waits and clears)
            for r in clears:
                self.assertTrue(covered(r['subgroup'].lower(), r['timestamp'], r['timestamp'] + r['duration']), r)
            # the long waits reach past every busy interval: with them the union would be larger
            long_waits = [r for r in waits
                          if not covered(r['subgroup'].lower(), r['timestamp'], r['timestamp'] + r['duration'])]
            self.assertTrue(long_waits)
            for e in ENGINES:
                all_iv = [(r['timestamp'], r['timestamp'] + r['duration']) for r in ex['instruction']
                          if r['subgroup'].lower() == e]
                by = ec['instructions']['by_engine'][e]
                self.assertGreaterEqual(union_len(all_iv), by['busy_ns'])
                self.assertGreater(by['duration_sum_ns'], by['instruction_time_ns'])  # each engine has waits

    def test_zero_length_instructions_are_zero_length_rows(self):
        zero_rows = 0
        for _, ec, ex, _ in self.cores():
            for e in ENGINES:
                mine = busy_instructions(r for r in ex['instruction'] if r['subgroup'].lower() == e)
                iv = [(r['timestamp'], r['timestamp'] + r['duration']) for r in mine]
                zero_ts = {r['timestamp'] for r in mine if r['duration'] == 0}
                for a, b in ([r['start_ts'], r['end_ts']] for r in ex['active_time'] if r['engine'] == e):
                    if a == b:
                        zero_rows += 1
                        self.assertIn(a, zero_ts)  # only a zero-length instruction makes one
                        self.assertFalse(any(s <= a <= t for s, t in iv if t > s))  # and nothing covers it
        self.assertGreater(zero_rows, 0)  # the DMA_DIRECT2D draws include duration 0

    def test_source_locations_and_sparse_fields(self):
        for gs, ec, ex, _ in self.cores():
            src = [r['nki_source_location'] for r in ex['instruction'] if 'nki_source_location' in r]
            self.assertEqual(len(src), ec['instructions']['with_nki_source'])
            self.assertTrue(all(re.fullmatch(r'kernels/\w+\.py:\d+', s) for s in src))
            if '--no-source' in gs.args:
                self.assertEqual(src, [])
            else:
                self.assertGreater(len(src), 0)
                self.assertLess(len(src), len(ex['instruction']))
            layers = {r['layer'] for r in ex['instruction']}
            self.assertIn('', layers)
            self.assertTrue(any(re.fullmatch(r'decoder\.layers\.\d+\.mlp\.\w+', l) for l in layers))
            waits = [r['evt_wait_time'] for r in ex['instruction'] if r['evt_wait_time']]
            self.assertEqual(len(waits), ec['instructions']['with_evt_wait'])
            self.assertEqual(sum(waits), ec['instructions']['evt_wait_sum_ns'])

    def test_flops_and_bytes_recomputed_from_records(self):
        for _, ec, ex, _ in self.cores():
            hw = tr = 0
            for r in ex['instruction']:
                if r['opcode'] != 'MATMUL':
                    continue
                k, m = map(int, re.search(r'(\d+)\*(\d+)\s*$', r['operands']).groups())
                n = int(re.search(r'src=\S*?\[[^\]]*\]\[(\d+),', r['operands']).group(1))
                self.assertEqual(r['elements'], k * m * n)
                hw += 2 * k * m * n
                tr += 2 * k * m * n if r['instruction_type'] == 'TRANSPOSE' else 0
            s = ex['summary'][0]
            self.assertEqual((s['hardware_flops'], s['transpose_flops'], s['model_flops']), (hw, tr, hw - tr))
            self.assertEqual(ec['flops'], {'hardware': hw, 'transpose': tr, 'model': hw - tr})
            sums = collections.Counter()
            for r in ex['instruction']:
                for k in ('hbm_read_bytes', 'hbm_write_bytes', 'sbuf_read_bytes', 'sbuf_write_bytes',
                          'psum_read_bytes', 'psum_write_bytes', 'spill_save_bytes', 'spill_reload_bytes',
                          'weight_queue_bytes', 'psum_read_sbuf_write_bytes'):
                    sums[k] += r.get(k, 0)
            for k, v in sums.items():
                self.assertEqual(s[k], v, k)
            self.assertEqual(ec['bytes']['hbm_read'], sums['hbm_read_bytes'])
            self.assertEqual(s['psum_read_sbuf_write_count'],
                             sum(1 for r in ex['instruction'] if r.get('is_psum_read_sbuf_write')))

    # ---- time base and summary relations ----

    def test_total_time_and_summary_relations(self):
        for _, ec, ex, _ in self.cores():
            md, s = ex['metadata'][0], ex['summary'][0]
            pk = [r for r in ex['dma'] if r['aggregated'] == 'no']
            last = max([r['timestamp'] + r['duration'] for r in ex['instruction']] +
                       [r['timestamp'] + r['duration'] for r in pk])
            self.assertEqual(md['first_hw_timestamp'], 0)
            self.assertEqual(md['last_hw_timestamp'], last)
            self.assertEqual(ec['total_time_ns'], last)
            T = s['total_time']
            self.assertEqual(T, (md['last_hw_timestamp'] - md['first_hw_timestamp']) / 1e9)
            self.assertEqual(s['neuroncore_cycle_count'], round(last * 1.4))
            self.assertEqual(ex['model_info'][0]['neuroncore_cycle_count'], s['neuroncore_cycle_count'])
            hbm = s['hbm_read_bytes'] + s['hbm_write_bytes']
            close = lambda a, b: self.assertTrue(math.isclose(a, b, rel_tol=1e-12), (a, b))
            close(s['mfu_estimated_percent'], s['model_flops'] / (PEAK * T))
            close(s['hfu_estimated_percent'], s['hardware_flops'] / (PEAK * T))
            close(s['mbu_estimated_percent'], hbm / (T * HBM_BW))
            close(s['mm_arithmetic_intensity'], s['model_flops'] / hbm)
            close(s['peak_flops_bandwidth_ratio'], PEAK / HBM_BW)
            for e in ENGINES:
                close(s[e + '_engine_active_time_percent'], s[e + '_engine_active_time'] / T)
            # formats.md 5.1: total_active_time = union of active_time[] and packet-level dma[]
            rows = [(r['start_ts'], r['end_ts']) for r in ex['active_time']]
            pkspans = [(r['timestamp'], r['timestamp'] + r['duration']) for r in pk]
            self.assertEqual(union_len(rows + pkspans), ec['total_active_ns'])
            busy = [(r['timestamp'], r['timestamp'] + r['duration']) for r in busy_instructions(ex['instruction'])]
            self.assertEqual(union_len(busy + pkspans), ec['total_active_ns'])
            close(s['total_active_time'], ec['total_active_ns'] / 1e9)
            self.assertEqual(s['matmul_instruction_count'], ec['instructions']['by_opcode']['MATMUL']['count'])

    def test_dma_records_classes_and_summary(self):
        for gs, ec, ex, s_json in self.cores():
            s = ex['summary'][0]
            dma = ex['dma']
            pk = [r for r in dma if r['aggregated'] == 'no']
            agg = {r['id']: r for r in dma if r['aggregated'] == 'yes'}
            exp = ec['dma']
            self.assertEqual((len(dma), len(pk), len(agg)),
                             (exp['records'], exp['packet_records'], exp['aggregated_records']))
            ts = [r['timestamp'] for r in dma]
            self.assertNotEqual(ts, sorted(ts))  # like the real exports
            for name, recs in (('packets', pk), ('aggregated', list(agg.values()))):
                cls = collections.defaultdict(lambda: {'count': 0, 'bytes': 0})
                for r in recs:
                    c = cls[size_class(r['transfer_size'])]
                    c['count'] += 1
                    c['bytes'] += r['transfer_size']
                for k in ('lt512', 'lt4096', 'ge4096'):
                    self.assertEqual(cls[k], exp[name]['by_size_class'][k], (name, k))
            self.assertTrue(all(exp['aggregated']['by_size_class'][k]['count'] > 0
                                for k in ('lt512', 'lt4096', 'ge4096')) or '--missing-dge' in gs.args)
            groups = collections.defaultdict(list)
            for r in pk:
                groups[r['packet_aggregation_id']].append(r)
            self.assertEqual(len(groups), exp['packet_groups'])
            for aid, a in agg.items():
                mine = groups[aid]
                self.assertEqual(a['transfer_size'], sum(p['transfer_size'] for p in mine if p['packet_idx'] == 0))
                self.assertEqual(a['timestamp'], min(p['timestamp'] for p in mine))
                self.assertEqual(a['timestamp'] + a['duration'], max(p['timestamp'] + p['duration'] for p in mine))
            static = [r for r in pk if r['queue_type'] in ('data', 'instruction')]
            dyn = [r for r in pk if r['queue_type'] == 'software_dynamic']
            self.assertEqual(len(static) + len(dyn), len(pk))
            span = lambda rs: [(r['timestamp'], r['timestamp'] + r['duration']) for r in rs]
            self.assertEqual(s['static_dma_size'], sum(r['transfer_size'] for r in static))
            self.assertEqual(s['static_dma_packet_count'], len(static))
            self.assertEqual(s['software_dynamic_dma_size'], sum(r['transfer_size'] for r in dyn))
            self.assertEqual(s['software_dynamic_dma_packet_count'], len(dyn))
            self.assertEqual(s['static_dma_active_time'], union_len(span(static)) / 1e9)
            self.assertEqual(s['software_dynamic_dma_active_time'], union_len(span(dyn)) / 1e9)
            self.assertEqual(s['dma_transfer_count'], len(agg))
            self.assertEqual(s['dma_transfer_total_bytes'], sum(a['transfer_size'] for a in agg.values()))
            self.assertEqual(s['dma_packet_time'], sum(r['duration'] for r in pk) / 1e9)
            unknown = [r for r in pk if r['variable'] == 'unknown']
            self.assertEqual(len(unknown), exp['unknown_variable_packets'])
            cc = [r for r in dma if r['is_cc_dma'] == 'yes']
            self.assertEqual(len(cc), exp['cc_dma_records'])

    def test_missing_dge_flag_drops_dge_metadata_and_warns(self):
        ex = self.lean.exports[0]
        self.assertEqual([w['category'] for w in ex['warnings']], ['Missing Data'])
        self.assertIn('DGE', ex['warnings'][0]['message'])
        dyn = [r for r in ex['dma'] if r['queue_type'] == 'software_dynamic']
        self.assertTrue(dyn and all(r['variable'] == 'unknown' and r['semaphore_id'] == '-1' for r in dyn))
        self.assertTrue(all(r['aggregated'] == 'no' for r in dyn))
        self.assertEqual(self.main.exports[0]['warnings'], [])

    def test_layer_summary_matches_instructions(self):
        for gs, ec, ex, _ in self.cores():
            L = gs.expected['params']['layers']
            ls = {r['name']: r for r in ex['layer_summary']}
            self.assertIn('/sg00', ls)
            for k in range(L):
                rec = ls['/sg00/decoder.layers.%d' % k]
                mine = [r for r in ex['instruction'] if r['layer'].startswith('decoder.layers.%d.' % k)]
                self.assertEqual(rec['start'], min(r['timestamp'] for r in mine))
                self.assertEqual(rec['end'], max(r['timestamp'] + r['duration'] for r in mine))
                self.assertEqual(rec['duration'], rec['end'] - rec['start'])
                for e in ENGINES:
                    eng = [r for r in mine if r['subgroup'].lower() == e]
                    sub = [(r['timestamp'], r['timestamp'] + r['duration']) for r in busy_instructions(eng)]
                    self.assertEqual(rec[e + '_engine_instruction_count'], len(eng))
                    self.assertEqual(rec[e + '_engine_active_time'], union_len(sub))
                    self.assertEqual(rec[e + '_engine_instruction_time'], sum(b - a for a, b in sub))
                win = ec['layer_windows'][k]
                self.assertGreaterEqual(rec['start'], win['start_ns'])
                self.assertLessEqual(rec['end'], win['end_ns'])
                self.assertEqual(len(mine), gs.expected['params']['instructions_per_layer'])

    # ---- summary-json, show-session ----

    def test_summary_json_equals_export_summary(self):
        for _, ec, ex, sj in self.cores():
            self.assertEqual(list(sj), [ec['summary_key']])
            self.assertRegex(ec['summary_key'], r'^n_[0-9a-f]{40}$')
            self.assertEqual(sj[ec['summary_key']], ex['summary'][0])
            self.assertEqual(set(ex['summary'][0]), set(ex['summary_groups'][0]))
            self.assertTrue(set(ex['summary'][0]) <= set(ex['terminology'][0]))
            self.assertRegex(ex['neff_header'][0]['uuid'], r'^[0-9a-f]{32}$')

    def test_show_session_trace_gives_the_expected_layer_latencies(self):
        for gs in self.sets():
            exp = gs.expected
            cores, cc = parse_trace(os.path.join(gs.out, 'show_session_trace.txt'))
            starts = {core: [t for ev, t, kind in lines if ev == 'TPB_TRIGGER' and kind == 'START']
                      for core, lines in cc.items()}
            listed = {c['cc_core']: c['tpb_trigger_starts'] for c in exp['collectives']['cc_cores']}
            self.assertEqual({k: len(v) for k, v in starts.items()}, listed)
            chosen = max(starts, key=lambda k: (len(starts[k]), k))  # most STARTs, ties → highest index
            self.assertEqual(chosen, exp['collectives']['selected_cc_core'])
            self.assertEqual(recipe_latencies(starts[chosen]), exp['layers']['latency_ns'])
            for c in exp['cores']:
                self.assertEqual(starts[c['cc_core']], c['collective_trigger_ts'])
                self.assertEqual(recipe_latencies(starts[c['cc_core']]), exp['layers']['latency_ns'])
            self.check_layer_roles(exp)

    def check_layer_roles(self, exp):
        """Roles, factors and the median-based outlier figures of expected.json, recomputed."""
        lay = exp['layers']
        per = {p['role']: p for p in lay['per_layer']}
        base = lay['base_latency_ns']
        self.assertEqual((lay['warmup_factor'], lay['outlier_factor']),
                         (exp['params']['warmup_factor'], exp['params']['outlier_factor']))
        self.assertEqual(per['warmup']['index'], 0)
        self.assertEqual(per['warmup']['latency_ns'], llround(base * lay['warmup_factor']))
        if lay['count'] >= 3:
            self.assertEqual(per['outlier']['latency_ns'], llround(base * lay['outlier_factor']))
            self.assertEqual(per['outlier']['index'], lay['outlier_layer'])
            self.assertGreaterEqual(lay['outlier_layer'], 1)
        else:
            self.assertIsNone(lay['outlier_layer'])
        for p in lay['per_layer']:
            if p['role'] == 'normal':
                self.assertLessEqual(abs(p['latency_ns'] / base - 1), 0.0301)
        lat = lay['latency_ns']
        med = median(lat)
        self.assertEqual(lay['median_latency_ns'], med)
        self.assertEqual(lay['median_latency_excluding_warmup_ns'], median(lat[1:]))
        self.assertEqual(lay['outlier_threshold'], OUTLIER_K)
        above = [k for k in range(1, len(lat)) if lat[k] > OUTLIER_K * med]
        self.assertEqual(lay['layers_above_threshold'], above)
        if lay['outlier_layer'] is not None:
            ratio = lat[lay['outlier_layer']] / med
            self.assertTrue(math.isclose(lay['outlier_ratio_to_median'], ratio, rel_tol=1e-12))
            self.assertEqual(lay['outlier_detectable'], ratio > OUTLIER_K)
        else:
            self.assertIsNone(lay['outlier_ratio_to_median'])
            self.assertFalse(lay['outlier_detectable'])
        return above

    def test_default_outlier_is_above_one_and_a_half_times_the_median(self):
        exp = self.main.expected
        self.assertEqual(exp['params']['layers'], 8)
        self.assertEqual((exp['layers']['warmup_factor'], exp['layers']['outlier_factor']), (1.8, 1.7))
        above = self.check_layer_roles(exp)
        self.assertTrue(exp['layers']['outlier_detectable'])
        self.assertEqual(above, [exp['layers']['outlier_layer']])  # exactly the outlier, never a normal layer
        self.assertGreater(exp['layers']['warmup_ratio_to_steady_median'], OUTLIER_K)

    def test_outlier_and_warmup_factors_are_options(self):
        out = os.path.join(self.tmp.name, 'factors')
        run_gen(out, '--seed', '3', '--cores', '1', '--instructions-per-layer', '100', '--outlier-factor', '2.5',
                '--warmup-factor', '1.25')
        exp = load(os.path.join(out, 'expected.json'))
        self.assertEqual((exp['layers']['warmup_factor'], exp['layers']['outlier_factor']), (1.25, 2.5))
        self.check_layer_roles(exp)
        self.assertEqual(exp['layers']['layers_above_threshold'], [exp['layers']['outlier_layer']])
        self.assertLess(exp['layers']['warmup_ratio_to_steady_median'], OUTLIER_K)
        cores, cc = parse_trace(os.path.join(out, 'show_session_trace.txt'))
        starts = [t for ev, t, kind in cc[exp['collectives']['selected_cc_core']]
                  if ev == 'TPB_TRIGGER' and kind == 'START']
        self.assertEqual(recipe_latencies(starts), exp['layers']['latency_ns'])

    def test_four_layers_hide_the_outlier_from_a_median_rule(self):
        # why the default is 8 layers: with 4, warm-up and outlier pull the median up
        out = os.path.join(self.tmp.name, 'four')
        run_gen(out, '--seed', '11', '--layers', '4', '--cores', '1', '--instructions-per-layer', '100')
        exp = load(os.path.join(out, 'expected.json'))
        self.check_layer_roles(exp)
        self.assertFalse(exp['layers']['outlier_detectable'])
        self.assertEqual(exp['layers']['layers_above_threshold'], [])

    def test_show_session_headers_and_instruction_lines_match_exports(self):
        for gs in self.sets():
            cores, _ = parse_trace(os.path.join(gs.out, 'show_session_trace.txt'))
            sess = load(os.path.join(gs.out, 'show_session.json'))
            graphs = {g['NC']: g for g in sess['NeffNodes'][0]['NodeInfo']['Graphs']}
            for ec, ex in zip(gs.expected['cores'], gs.exports):
                c = cores[ec['nc']]
                ins = ex['instruction']
                self.assertEqual(c['total_ns'], ec['total_time_ns'])
                self.assertEqual([t for t, _, _ in c['starts']], [r['timestamp'] for r in ins])
                self.assertEqual(c['ends'], len(ins))
                for e, name in zip(ENGINES, ('Tensor', 'Vector', 'Scalar', 'GpSimd', 'Sync')):
                    self.assertEqual(c['counts'][name], ec['instructions']['by_engine'][e]['count'])
                self.assertEqual(c['counts']['DMA'], ec['dma']['packet_records'])
                g = graphs[ec['nc']]
                self.assertEqual(g['CycleCount'], ex['summary'][0]['neuroncore_cycle_count'])
                self.assertEqual(g['TotalInstructionTraceCount'], len(ins))

    def test_demo_profile_is_small_and_shows_its_outlier(self):
        out = os.path.join(self.tmp.name, 'demo')
        run_gen(out, '--demo')
        exp = load(os.path.join(out, 'expected.json'))
        self.assertEqual((exp['params']['layers'], exp['params']['cores'], exp['params']['instructions_per_layer'],
                          exp['params']['demo']), (8, 2, 200, True))
        total = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
        self.assertLess(total, 8 << 20)
        self.assertTrue(all(1000 <= c['instructions']['count'] <= 5000 for c in exp['cores']))
        self.assertEqual(self.check_layer_roles(exp), [exp['layers']['outlier_layer']])
        again = os.path.join(self.tmp.name, 'demo-layers')
        run_gen(again, '--layers', '5', '--demo')  # --layers still overrides the demo
        self.assertEqual(load(os.path.join(again, 'expected.json'))['params']['layers'], 5)

    def test_library_checks(self):
        check = os.path.join(os.path.dirname(os.path.abspath(GEN)), 'nl-gen-write-check')
        if not os.access(check, os.X_OK):
            self.skipTest('nl-gen-write-check not built next to %s' % GEN)
        scratch = os.path.join(self.tmp.name, 'lib')
        os.makedirs(scratch)
        res = subprocess.run([check, scratch], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr.decode(errors='replace'))
        self.assertEqual(res.stdout, b'')

    def test_bad_arguments_exit_2(self):
        for args in (['--layers', '0'], ['--cores', 'x'], ['--bogus'], ['--target-bytes', '1X'],
                     ['--outlier-factor', '0.5'], ['--outlier-factor', '11'], ['--warmup-factor', 'x'],
                     ['--warmup-factor', 'nan'], ['--layers']):
            rc = subprocess.run([GEN, '--out', os.path.join(self.tmp.name, 'bad'), *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            self.assertEqual(rc, 2, args)


# ---- system-profile capture (.pb) and Kineto trace.json ----
#
# A stdlib protobuf decoder (formats.md §9): varints, fixed32 floats, length-delimited fields. It knows
# nothing of the generator's encoder or of proto/, and keeps every field it meets, so a wrong wire type, a
# missing field or an extra one shows up.

EV_TYPES_2_30_51 = {
    0: 'generic', 1: 'nrt_load', 2: 'async_post_request', 3: 'nrt_execute', 4: 'kmgr_exec_core',
    5: 'nrt_load_collectives', 6: 'cc_exec_barrier', 7: 'nc_exec_running', 8: 'cc_running', 9: 'nrt_tensor_read',
    10: 'nrt_tensor_write', 11: 'nrt_tensor_read_batch', 12: 'nrt_tensor_write_batch', 13: 'numerical_err',
    14: 'enc_barrier_recv', 15: 'enc_barrier_send', 16: 'enc_barrier', 17: 'kbl_exec_pre', 18: 'kbl_exec_core',
    19: 'kbl_exec_wait', 20: 'kbl_exec_post', 21: 'nrt_model_switch', 22: 'nrt_model_submit',
    23: 'nrt_async_sema_wait', 24: 'hw_notify', 25: 'timestamp_sync_point', 26: 'nc_model_switch',
    27: 'nrt_tensor_allocate', 28: 'nrt_tensor_free', 29: 'tensor_block_while_exec', 30: 'dmem_buf_copyin',
    31: 'dmem_buf_copyout', 32: 'dmem_buf_batch_copyin', 33: 'dmem_buf_batch_copyout', 34: 'nrt_dma_mem_alloc',
    35: 'nrt_dma_mem_dealloc', 36: 'exec_consume_nc_status_notifications',
    37: 'exec_consume_cc_core_notifications', 38: 'notification_consume_errors', 39: 'exec_consume_gpsimd_stdio'}
PB_FILES = ('trace_info.pb', 'ntrace.pb', 'cpu_util.pb', 'host_mem.pb')


def pb_varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i
        if s > 63:
            raise ValueError('varint too long at %d' % i)


def pb_fields(b):
    """[(field, wire type, value)]: varint → int, fixed32 → the float as a Python float, length → bytes."""
    out, i = [], 0
    while i < len(b):
        key, i = pb_varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = pb_varint(b, i)
        elif wt == 2:
            n, i = pb_varint(b, i)
            v = bytes(b[i:i + n])
            if len(v) != n:
                raise ValueError('length-delimited field %d runs past the end' % f)
            i += n
        elif wt == 5:
            v = struct.unpack_from('<f', b, i)[0]
            i += 4
        else:
            raise ValueError('unexpected wire type %d (field %d)' % (wt, f))
        out.append((f, wt, v))
    if i != len(b):
        raise ValueError('message overruns its length')
    return out


def pb_stream(path):
    """Records of a [u32 LE length][message] stream; the lengths must add up to the file size."""
    with open(path, 'rb') as f:
        data = f.read()
    recs, i = [], 0
    while i < len(data):
        if i + 4 > len(data):
            raise ValueError('%s: truncated length prefix at %d' % (path, i))
        n = struct.unpack_from('<I', data, i)[0]
        if i + 4 + n > len(data):
            raise ValueError('%s: record at %d runs past the end' % (path, i))
        recs.append(data[i + 4:i + 4 + n])
        i += 4 + n
    return recs


def pb_one(fields, number, default=None):
    vals = [v for f, _, v in fields if f == number]
    if len(vals) > 1:
        raise ValueError('field %d repeated' % number)
    return vals[0] if vals else default


def decode_trace_info(path):
    with open(path, 'rb') as f:
        raw = f.read()
    top = pb_fields(raw)
    ti = {'raw': raw, 'fields': [f for f, _, _ in top], 'tables': {}, 'explicit_zero_ids': 0}
    for key, num in (('format', 1), ('pid', 2), ('f9', 9), ('start_ns', 11), ('end_ns', 12), ('events', 14),
                     ('f16', 16)):
        ti[key] = pb_one(top, num)
    for key, num in (('instance_id', 4), ('host_ip', 13), ('instance_type', 15), ('hostname', 17)):
        ti[key] = pb_one(top, num).decode()

    def trace_file(b):
        x = pb_fields(b)
        return {'path': pb_one(x, 1).decode(), 'type': pb_one(x, 2), 'records': pb_one(x, 3)}
    ti['ntrace_file'] = trace_file(pb_one(top, 6))
    host = pb_fields(pb_one(top, 7))
    ti['host'] = {'cpus': pb_one(host, 1), 'cpu_model': pb_one(host, 2).decode(), 'memory': pb_one(host, 3),
                  'periods': (pb_one(host, 4), pb_one(host, 5)), 'cpu_file': trace_file(pb_one(host, 6)),
                  'mem_file': trace_file(pb_one(host, 7)), 'wire': [(f, wt) for f, wt, _ in host]}
    ti['f18'] = pb_fields(pb_one(top, 18))
    for f, _, v in top:
        if f != 10:
            continue
        t = pb_fields(v)
        entries = []
        for ef, _, e in t:
            if ef != 2:
                continue
            x = pb_fields(e)
            ti['explicit_zero_ids'] += x[0] == (1, 0, 0)
            entries.append((pb_one(x, 1, 0), pb_one(x, 2).decode()))
        ti['tables'][pb_one(t, 1).decode()] = entries
    return ti


def decode_ntrace(path, types):
    """Events with names, merged attributes and the raw fields."""
    evs = []
    for idx, rec in enumerate(pb_stream(path)):
        fs = pb_fields(rec)
        e = {'index': idx, 'numbers': [f for f, _, _ in fs], 'attrs': []}
        for f, wt, v in fs:
            if f == 12:
                kv = pb_fields(v)
                e['attrs'].append((pb_one(kv, 1).decode(), pb_one(kv, 2).decode()))
            else:
                e[f] = v
        e['type'] = types[e[7]]
        e['a'] = dict(e['attrs'])
        evs.append(e)
    return evs


def pair_spans(evs):
    """Begin/end pairs by span id (f15): (type, begin, end) with both records' attributes merged."""
    begins, spans, instants = {}, [], []
    for e in evs:
        if e[14] == 1:
            begins[e[15]] = e
        elif e[14] == 2:
            b = begins.pop(e[15])
            assert b['type'] == e['type'], (b['type'], e['type'])
            spans.append({'type': b['type'], 'start': b[2], 'end': e[2], 'a': dict(b['a'], **e['a']),
                          'begin': b, 'end_rec': e, 'tid': b[9]})
        else:
            instants.append(e)
    assert not begins, 'unpaired begins: %d' % len(begins)
    return spans, instants


def decode_cpu(path):
    out = []
    for rec in pb_stream(path):
        fs = pb_fields(rec)
        out.append({'util': pb_one(fs, 1), 'ts': pb_one(fs, 2), 'cpu': pb_one(fs, 3),
                    'wire': [(f, wt) for f, wt, _ in fs]})
    return out


def decode_mem(path):
    return [dict((f, v) for f, _, v in pb_fields(rec)) for rec in pb_stream(path)]


def load_kineto(path):
    """trace.json with ts/dur kept as Decimal (exact), plus the raw text."""
    with open(path) as f:
        text = f.read()
    return json.loads(text, parse_float=decimal.Decimal), text


def us_to_ns(v):
    n = v * 1000
    assert n == n.to_integral_value(), v
    return int(n)


def within(inner, outer):
    return outer[0] <= inner[0] and inner[1] <= outer[1]


class Capture:
    """One generator run with --capture/--kineto, decoded once."""

    def __init__(self, out, args):
        self.out = out
        t = time.monotonic()
        run_gen(out, *args)
        self.seconds = time.monotonic() - t
        self.expected = load(os.path.join(out, 'expected.json'))
        self.ranks = {}

    def rank(self, r):
        """Decoded files of rank r (lazily)."""
        if r in self.ranks:
            return self.ranks[r]
        er = self.expected['ranks'][r]
        d = {'exp': er}
        if er['dir'] is not None:
            base = os.path.join(self.out, er['dir'])
            d['ti'] = decode_trace_info(os.path.join(base, 'trace_info.pb'))
            types = dict(d['ti']['tables']['ntrace_inspect_type'])
            d['evs'] = decode_ntrace(os.path.join(base, 'ntrace.pb'), types)
            d['spans'], d['instants'] = pair_spans(d['evs'])
            d['cpu'] = decode_cpu(os.path.join(base, 'cpu_util.pb'))
            d['mem'] = decode_mem(os.path.join(base, 'host_mem.pb'))
        if 'kineto' in er:
            d['kin'], d['kin_text'] = load_kineto(os.path.join(self.out, er['kineto']['file']))
        self.ranks[r] = d
        return d


def device_union(intervals):
    merged = merge(intervals)
    return sum(e - s for s, e in merged), [merged[i + 1][0] - merged[i][1] for i in range(len(merged) - 1)]


class CaptureTest(unittest.TestCase):
    """--capture, --ranks, --executions, --kineto: every claim of expected.json's ranks[] recomputed from the
    decoded .pb streams and trace.json, and the join between them checked to the nanosecond."""
    tmp = None
    cap = None    # 2 ranks, 2 cores, 4 executions, capture + Kineto
    many = None   # 32 ranks, tiny

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix='nl-gen-capture-')
        cls.cap = Capture(os.path.join(cls.tmp.name, 'cap'),
                          ['--seed', '21', '--layers', '3', '--cores', '2', '--instructions-per-layer', '80',
                           '--capture', '--ranks', '2', '--executions', '4', '--kineto'])
        cls.many = Capture(os.path.join(cls.tmp.name, 'many'),
                           ['--seed', '3', '--layers', '1', '--cores', '1', '--instructions-per-layer', '50',
                            '--capture', '--ranks', '32', '--executions', '2', '--kineto'])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def all_ranks(self):
        for c in (self.cap, self.many):
            for r in range(c.expected['params']['ranks']):
                yield c, c.rank(r)

    # ---- layout and trace_info.pb ----

    def test_capture_directories_hold_the_system_files_exports_and_trace(self):
        exp = self.cap.expected
        self.assertEqual(sorted(exp['files']['capture_dirs']),
                         sorted(n for n in os.listdir(self.cap.out) if os.path.isdir(os.path.join(self.cap.out, n))))
        for r, er in enumerate(exp['ranks']):
            self.assertEqual(er['dir'], 'i-0synthetic%d_pid_%d' % (r, er['pid']))
            names = set(os.listdir(os.path.join(self.cap.out, er['dir'])))
            self.assertEqual(names, set(PB_FILES) | {'trace.json', 'profile_nc0.json', 'profile_nc1.json'})
            for f in er['exports']:
                self.assertTrue(filecmp.cmp(os.path.join(self.cap.out, f),
                                            os.path.join(self.cap.out, exp['files']['exports'][int(f[-6])]),
                                            shallow=False))
        top = os.listdir(self.cap.out)
        self.assertFalse([n for n in top if n.startswith('profile_nc')])  # exports live in the rank dirs
        self.assertEqual(exp['files']['exports'][0], exp['ranks'][0]['exports'][0])

    def test_trace_info_is_one_message_shaped_like_the_real_capture(self):
        for c, d in self.all_ranks():
            ti, er = d['ti'], d['exp']
            self.assertEqual(ti['fields'], [1, 2, 4, 6, 7, 9] + [10] * 4 + [11, 12, 13, 14, 15, 16, 17, 18])
            self.assertEqual((ti['format'], ti['pid'], ti['f9'], ti['f16']), (2, er['pid'], 2, 2))
            self.assertEqual(ti['instance_id'], er['instance_id'])
            self.assertEqual(ti['ntrace_file'], {'path': './output/%s/ntrace.pb' % er['dir'], 'type': 1,
                                                 'records': len(d['evs'])})
            self.assertEqual(ti['events'], len(d['evs']))
            h = ti['host']
            self.assertEqual((h['cpus'], h['periods'], h['memory']), (12, (1.0, 1.0), er['system']['host_mem']['total_bytes']))
            self.assertEqual(h['wire'], [(1, 0), (2, 2), (3, 0), (4, 5), (5, 5), (6, 2), (7, 2)])
            self.assertEqual(h['cpu_file'], {'path': './output/%s/cpu_util.pb' % er['dir'], 'type': 2,
                                             'records': len(d['cpu']) // 12})
            self.assertEqual(h['mem_file'], {'path': './output/%s/host_mem.pb' % er['dir'], 'type': 3,
                                             'records': len(d['mem'])})
            self.assertEqual((ti['start_ns'], ti['end_ns']), (er['timeline']['start_ns'], er['timeline']['end_ns']))
            self.assertEqual(ti['f18'], [(4, 0, 0xffffffff)])
            tables = ti['tables']
            self.assertEqual(list(tables), ['ntrace_inspect_type', 'system_trace', 'nrt_inspect_mem_usage_type',
                                            'nrt_inspect_mem_alloc_errno_type'])
            self.assertEqual(dict(tables['ntrace_inspect_type']), EV_TYPES_2_30_51)
            ids = [i for i, _ in tables['ntrace_inspect_type']]
            self.assertNotEqual(ids, sorted(ids))  # unsorted, as the runtime writes it
            self.assertEqual(dict(tables['system_trace']), {er['timeline']['model_id']: er['timeline']['neff_path'],
                                                           0: 'invalid_interned_string'})
            self.assertEqual(ti['explicit_zero_ids'], 4)  # `08 00` for generic, invalid_interned_string, …
            self.assertEqual(os.path.getsize(os.path.join(c.out, er['system']['files']['trace_info'])),
                             er['system']['bytes']['trace_info'])

    def test_encoding_matches_the_real_capture_when_samples_are_present(self):
        real = os.path.join(os.environ.get('NL_SAMPLES_DIR', ''), 'capture', 'i-0af76a70a6d3864dd_pid_713479')
        if not os.path.exists(os.path.join(real, 'trace_info.pb')):
            self.skipTest('real capture not found (NL_SAMPLES_DIR unset or samples absent)')

        def shape(d):
            ti = decode_trace_info(os.path.join(d, 'trace_info.pb'))
            keys = collections.defaultdict(set)
            for e in decode_ntrace(os.path.join(d, 'ntrace.pb'), dict(ti['tables']['ntrace_inspect_type'])):
                keys[(e['type'], e[14])].add(frozenset(e['a']))
                self.assertEqual([n for n in e['numbers'] if n != 12], [2, 7, 9, 10, 14, 15])
            cpu = {tuple(f for f, _ in x['wire']) for x in decode_cpu(os.path.join(d, 'cpu_util.pb'))}
            mem = {tuple(sorted(m)) for m in decode_mem(os.path.join(d, 'host_mem.pb'))}
            return ti, keys, cpu, mem
        rt, rk, rc, rm = shape(real)
        gt, gk, gc, gm = shape(os.path.join(self.cap.out, self.cap.expected['ranks'][0]['dir']))
        self.assertEqual(gt['fields'], rt['fields'])
        self.assertEqual(gt['host']['wire'], rt['host']['wire'])
        self.assertEqual(list(gt['tables']), list(rt['tables']))
        for name in ('ntrace_inspect_type', 'nrt_inspect_mem_usage_type', 'nrt_inspect_mem_alloc_errno_type'):
            self.assertEqual(gt['tables'][name], rt['tables'][name], name)
        for key, sets in gk.items():  # every (type, phase) carries the attribute keys the runtime writes
            self.assertEqual(sets, rk[key], key)
        self.assertEqual((gc, gm), (rc, rm))

    def test_neff_path_matches_the_exports(self):
        d = self.cap.rank(0)
        ex = load(os.path.join(self.cap.out, d['exp']['exports'][0]))
        self.assertEqual(ex['neff_header'][0]['network_name'], d['exp']['timeline']['neff_path'])

    # ---- ntrace.pb ----

    def test_ntrace_records_carry_all_seven_fields_grouped_by_worker(self):
        for c, d in self.all_ranks():
            evs, er = d['evs'], d['exp']
            self.assertEqual(len(evs), er['system']['records']['ntrace'])
            workers = [e[10] >> 50 for e in evs]
            self.assertEqual(workers, sorted(workers))  # grouped by worker
            for w in set(workers):
                seqs = [e[10] & ((1 << 50) - 1) for e in evs if e[10] >> 50 == w]
                self.assertEqual(seqs, list(range(1, len(seqs) + 1)))
            for e in evs:
                self.assertEqual([n for n in e['numbers'] if n != 12], [2, 7, 9, 10, 14, 15])
                self.assertEqual(int(e['a']['worker_gid']), e[10] >> 50)
                self.assertEqual(int(e['a']['nc_idx']), e[10] >> 50)
                if e[14] != 2:
                    self.assertEqual(e[15], e[10])  # span id = the begin's own sequence id
            ts = [e[2] for e in evs]
            self.assertNotEqual(ts, sorted(ts))  # logging order, not time order

    def test_event_counts_per_type_match_expected(self):
        for c, d in self.all_ranks():
            got = collections.defaultdict(lambda: {'records': 0, 'begin': 0, 'end': 0, 'instant': 0})
            for e in d['evs']:
                got[e['type']]['records'] += 1
                got[e['type']][{1: 'begin', 2: 'end', 3: 'instant'}[e[14]]] += 1
            self.assertEqual(dict(got), d['exp']['system']['event_counts'])
            ex = d['exp']['timeline']
            n, k = len(ex['executions']), len(ex['nc_exec_running'])
            self.assertEqual(got['nc_exec_running']['begin'], n * k)
            self.assertEqual(got['timestamp_sync_point']['instant'], n * k)
            self.assertEqual(got['nrt_load']['begin'], k)

    def test_nc_exec_running_spans_match_expected_and_the_exports(self):
        for c, d in self.all_ranks():
            tl = d['exp']['timeline']
            runs = [s for s in d['spans'] if s['type'] == 'nc_exec_running']
            by_core = collections.defaultdict(list)
            for s in runs:
                self.assertEqual(s['a']['device_core_idx'], s['a']['nc_idx'])
                by_core[int(s['a']['nc_idx'])].append({
                    'exec_id': int(s['a']['exec_id']), 'start_ns': s['start'], 'end_ns': s['end'],
                    'duration_ns': s['end'] - s['start'], 'nc_start_ns': int(s['begin']['a']['nc_timestamp_ns']),
                    'nc_end_ns': int(s['end_rec']['a']['nc_timestamp_ns'])})
            for core in tl['nc_exec_running']:
                mine = sorted(by_core[core['nc']], key=lambda x: x['exec_id'])
                want = [{k: v for k, v in x.items() if k != 'launch_latency_ns'} for x in core['spans']]
                self.assertEqual(mine, want)
                self.assertEqual(core['busy_ns'], union_len([(x['start_ns'], x['end_ns']) for x in mine]))
                for x in mine:  # device and host durations agree; steady executions = the export
                    self.assertEqual(x['nc_end_ns'] - x['nc_start_ns'], x['duration_ns'])
                    extra = tl['warmup_extra_ns'] if x['exec_id'] == 1 else 0
                    self.assertEqual(x['duration_ns'], core['export_total_ns'] + extra)
        ex = load(os.path.join(self.cap.out, self.cap.expected['ranks'][0]['exports'][1]))
        core1 = self.cap.expected['ranks'][0]['timeline']['nc_exec_running'][1]
        self.assertEqual(ex['metadata'][0]['last_hw_timestamp'] - ex['metadata'][0]['first_hw_timestamp'],
                         core1['export_total_ns'])
        self.assertEqual(self.cap.expected['cores'][1]['total_time_ns'], core1['export_total_ns'])

    def test_sync_points_convert_device_time_exactly(self):
        for c, d in self.all_ranks():
            sync = {(int(i['a']['exec_id']), int(i['a']['nc_idx'])): i for i in d['instants']}
            self.assertTrue(all(i['type'] == 'timestamp_sync_point' and 'device_core_idx' not in i['a']
                                for i in d['instants']))
            drift = d['exp']['timeline']['drift_ns_per_execution']
            worst = 0
            for s in (s for s in d['spans'] if s['type'] == 'nc_exec_running'):
                key = (int(s['a']['exec_id']), int(s['a']['nc_idx']))
                sp = sync[key]
                cpu, nc = int(sp['a']['cpu_timestamp_ns']), int(sp['a']['nc_timestamp_ns'])
                for rec, f2 in ((s['begin'], s['start']), (s['end_rec'], s['end'])):
                    conv = cpu + int(rec['a']['nc_timestamp_ns']) - nc
                    worst = max(worst, abs(conv - f2))
                    # another execution's sync point of the same core is off by the drift
                    other = sync[(1 if key[0] != 1 else 2, key[1])]
                    wrong = int(other['a']['cpu_timestamp_ns']) + int(rec['a']['nc_timestamp_ns']) - \
                        int(other['a']['nc_timestamp_ns'])
                    self.assertEqual(abs(wrong - f2), drift * abs(key[0] - int(other['a']['exec_id'])))
            self.assertEqual(worst, d['exp']['system']['sync']['max_abs_error_ns'])
            self.assertEqual(len(sync), d['exp']['system']['sync']['points'])

    def test_union_busy_and_gaps_between_executions(self):
        for c, d in self.all_ranks():
            tl = d['exp']['timeline']
            runs = [(s['start'], s['end']) for s in d['spans'] if s['type'] == 'nc_exec_running']
            busy, gaps = device_union(runs)
            self.assertEqual(busy, tl['device_busy_ns'])
            self.assertEqual(gaps, tl['gaps_ns'])
            self.assertEqual(len(gaps), len(tl['executions']) - 1)
            self.assertEqual(sum(gaps), tl['gap_total_ns'])
            self.assertEqual(sum(e - s for s, e in runs), tl['device_sum_ns'])
            for x, y, g in zip(tl['executions'], tl['executions'][1:], gaps):
                self.assertEqual(y['start_ns'] - x['end_ns'], g)
            for x in tl['executions']:
                mine = [(s['start'], s['end']) for s in d['spans']
                        if s['type'] == 'nc_exec_running' and int(s['a']['exec_id']) == x['exec_id']]
                self.assertEqual(union_len(mine), x['busy_ns'])
                self.assertEqual((min(a for a, _ in mine), max(b for _, b in mine)), (x['start_ns'], x['end_ns']))
            self.assertEqual([x['warmup'] for x in tl['executions']], [True] + [False] * (len(gaps)))

    def test_runtime_spans_enclose_the_execution_and_the_copies(self):
        for c, d in self.all_ranks():
            tl = d['exp']['timeline']
            spans = d['spans']
            by = collections.defaultdict(list)
            for s in spans:
                by[(s['type'], int(s['a']['nc_idx']))].append(s)
            for core in tl['nc_exec_running']:
                k = core['nc']
                runs = sorted(by[('nc_exec_running', k)], key=lambda s: s['start'])
                execs = sorted(by[('nrt_execute', k)], key=lambda s: s['start'])
                self.assertEqual(len(runs), len(execs))
                for run, ex, want in zip(runs, execs, core['spans']):
                    self.assertTrue(within((run['start'], run['end']), (ex['start'], ex['end'])))
                    self.assertEqual(run['start'] - ex['start'], want['launch_latency_ns'])
                    self.assertEqual(ex['a']['model_id'], str(tl['model_id']))
                for t in ('nrt_model_submit', 'kbl_exec_pre', 'kmgr_exec_core'):
                    self.assertTrue(all(any(within((s['start'], s['end']), (e['start'], e['end'])) for e in execs)
                                        for s in by[(t, k)]), t)
                waits = by[('kbl_exec_wait', k)]
                self.assertTrue(all(any(within((r['start'], r['end']), (w['start'], w['end'])) for w in waits)
                                    for r in runs))
                for outer, inner in (('nrt_tensor_write', 'dmem_buf_copyin'), ('nrt_tensor_read', 'dmem_buf_copyout')):
                    calls = by[(outer, k)]
                    self.assertEqual(len(calls), len(runs))
                    for call in calls:
                        self.assertEqual(sum(within((x['start'], x['end']), (call['start'], call['end']))
                                             for x in by[(inner, k)]), 1)
                        self.assertEqual(call['tid'], tl['main_thread'])
                load_ = by[('nrt_load', k)]
                self.assertEqual(len(load_), 1)
                want = tl['nrt_load'][k]
                self.assertEqual((load_[0]['start'], load_[0]['end']), (want['start_ns'], want['end_ns']))
                self.assertEqual(load_[0]['end_rec']['a']['model_id'], str(tl['model_id']))
                weights = [x for x in by[('dmem_buf_copyin', k)] if within((x['start'], x['end']),
                                                                          (load_[0]['start'], load_[0]['end']))]
                self.assertEqual(sum(int(x['a']['size']) for x in weights), want['weight_bytes'])

    def test_cpu_util_and_host_mem_samples(self):
        for c, d in self.all_ranks():
            sys_ = d['exp']['system']
            cpu, mem = d['cpu'], d['mem']
            self.assertEqual(len(cpu), sys_['cpu']['records'])
            self.assertEqual(len(cpu), 12 * sys_['cpu']['samples'])
            stamps = sorted({x['ts'] for x in cpu})
            self.assertEqual(len(stamps), sys_['cpu']['samples'])
            self.assertEqual((stamps[0], stamps[-1]), (sys_['cpu']['first_sample_ns'], sys_['cpu']['last_sample_ns']))
            for a, b in zip(stamps, stamps[1:]):
                self.assertLess(abs((b - a) - 1000000000), 1000000)  # 1 Hz
            for i, x in enumerate(cpu):
                self.assertEqual(x['ts'], stamps[i // 12])
                self.assertEqual(x['cpu'], (i % 12) or None)  # cpu 0 is omitted
                self.assertNotEqual(x['util'], 0.0)          # 0 % is omitted
                self.assertEqual([f for f, _ in x['wire']], [f for f in (1, 2, 3) if
                                                            (f == 1 and x['util'] is not None) or f == 2 or
                                                            (f == 3 and x['cpu'] is not None)])
            self.assertTrue(all(x['util'] is None for x in cpu[:12]))  # the first timestamp has no utilisation
            self.assertEqual(sum(x['util'] is None for x in cpu), sys_['cpu']['omitted_util_records'])
            top = max(cpu, key=lambda x: x['util'] or 0.0)
            self.assertEqual(top['util'], sys_['cpu']['max_pct'])
            self.assertEqual(((top['cpu'] or 0), top['ts']), (sys_['cpu']['max_cpu'], sys_['cpu']['max_at_ns']))
            self.assertTrue(0 < top['util'] <= 100)
            self.assertEqual([m[2] for m in mem], stamps)
            self.assertEqual((min(m[1] for m in mem), max(m[1] for m in mem)),
                             (sys_['host_mem']['min_bytes'], sys_['host_mem']['max_bytes']))
            self.assertEqual(len(mem), sys_['host_mem']['samples'])

    # ---- trace.json ----

    def test_kineto_trace_has_the_torch_2_shape(self):
        for c, d in self.all_ranks():
            k, text, er = d['kin'], d['kin_text'], d['exp']
            self.assertEqual(list(k), ['schemaVersion', 'deviceProperties', 'distributedInfo', 'neuronlens_synthetic',
                                       'traceEvents', 'traceName', 'displayTimeUnit', 'baseTimeNanoseconds'])
            self.assertEqual(k['schemaVersion'], 1)
            self.assertIn('synthetic', k['neuronlens_synthetic'])
            di = k['distributedInfo']
            self.assertEqual((di['rank'], di['world_size']), (er['rank'], c.expected['params']['ranks']))
            self.assertEqual(di['pg_config'][0]['ranks'], list(range(c.expected['params']['ranks'])))
            self.assertEqual(k['baseTimeNanoseconds'], er['kineto']['base_time_ns'])
            self.assertEqual([p['id'] for p in k['deviceProperties']], list(range(len(er['timeline']['nc_exec_running']))))
            # every ts/dur is written with exactly three decimals
            nums = re.findall(r'"(?:ts|dur)": ([0-9.eE+-]+)', text)
            self.assertTrue(nums and all(re.fullmatch(r'\d+\.\d{3}', n) for n in nums))
            ev = k['traceEvents']
            ts = [e['ts'] for e in ev if e['ph'] != 'M']
            self.assertNotEqual(ts, sorted(ts))
            cats = collections.Counter(e['cat'] for e in ev if 'cat' in e)
            self.assertEqual(dict(cats), er['kineto']['by_category'])
            self.assertEqual(dict(collections.Counter(e['ph'] for e in ev)), er['kineto']['by_phase'])
            self.assertEqual(len(ev), er['kineto']['events'])
            self.assertEqual(sum(1 for e in ev if 'cat' not in e), er['kineto']['events_without_category'])
            self.assertEqual(os.path.getsize(os.path.join(c.out, er['kineto']['file'])), er['kineto']['bytes'])
            for e in ev:
                self.assertIn(e['ph'], ('X', 'i', 's', 'f', 'M'))

    def test_kineto_steps_and_compiled_regions(self):
        for c, d in self.all_ranks():
            base, er = d['kin']['baseTimeNanoseconds'], d['exp']['kineto']
            ev = d['kin']['traceEvents']
            dev = [(base + us_to_ns(e['ts']), base + us_to_ns(e['ts']) + us_to_ns(e['dur']))
                   for e in ev if e.get('cat') == 'privateuse1_driver']

            def clipped_busy(a, b):
                return union_len([(max(s, a), min(t, b)) for s, t in dev if s < b and t > a])
            steps = [{'name': e['name'], 'start_ns': base + us_to_ns(e['ts']),
                      'end_ns': base + us_to_ns(e['ts']) + us_to_ns(e['dur']), 'dur_ns': us_to_ns(e['dur']),
                      'device_busy_ns': clipped_busy(base + us_to_ns(e['ts']), base + us_to_ns(e['ts']) + us_to_ns(e['dur']))}
                     for e in ev if e.get('cat') == 'user_annotation' and e['name'].startswith('ProfilerStep#')]
            self.assertEqual(sorted(steps, key=lambda s: s['start_ns']), er['steps'])
            regions = [e for e in ev if e.get('cat') == 'user_annotation' and e['name'].startswith('Torch-Compiled Region')]
            self.assertEqual(len(regions), er['compiled_regions'])
            self.assertEqual(sum(us_to_ns(e['dur']) for e in regions), er['compiled_region_ns'])
            for s in steps:  # each region lies inside its step
                self.assertEqual(sum(within((base + us_to_ns(r['ts']), base + us_to_ns(r['ts']) + us_to_ns(r['dur'])),
                                            (s['start_ns'], s['end_ns'])) for r in regions), 1)
            py = [e for e in ev if e.get('cat') == 'python_function']
            ids = {e['args']['Python id'] for e in py}
            self.assertTrue(all(e['args']['Python parent id'] is None or e['args']['Python parent id'] in ids for e in py))

    def test_kineto_joins_the_system_trace_exactly(self):
        for c, d in self.all_ranks():
            k, er = d['kin'], d['exp']
            base, ev = k['baseTimeNanoseconds'], k['traceEvents']
            pid = er['pid']

            def iv(e):
                t = base + us_to_ns(e['ts'])
                return t, t + us_to_ns(e.get('dur', 0))
            dev = [e for e in ev if e.get('cat') == 'privateuse1_driver']
            self.assertEqual(len(dev), er['kineto']['device_events'])
            sys_runs = {(int(s['a']['nc_idx']), int(s['a']['exec_id'])): (s['start'], s['end'])
                        for s in d['spans'] if s['type'] == 'nc_exec_running'}
            self.assertEqual({(e['args']['nc_idx'], e['args']['exec_id']): iv(e) for e in dev}, sys_runs)
            # the runtime copies are the very spans of ntrace.pb
            for name in ('nrt_tensor_write', 'nrt_tensor_read'):
                mine = sorted((iv(e), e['args']['device']) for e in ev
                              if e.get('cat') == 'privateuse1_runtime' and e['name'] == name)
                theirs = sorted(((s['start'], s['end']), int(s['a']['nc_idx'])) for s in d['spans'] if s['type'] == name)
                self.assertEqual(mine, theirs, name)
            # correlation → the launch call → its enclosing host op; flows pair host and device
            host = [e for e in ev if e['ph'] == 'X' and e.get('pid') == pid and e.get('cat') != 'Trace']
            launches = {e['args']['correlation']: e for e in host if e.get('cat') == 'privateuse1_runtime'
                        and 'correlation' in e['args']}
            ops = [e for e in host if e.get('cat') == 'cpu_op']
            flows_s = {e['id']: e for e in ev if e['ph'] == 's'}
            flows_f = {e['id']: e for e in ev if e['ph'] == 'f'}
            per_op = collections.Counter()
            lat = []
            for e in dev:
                corr = e['args']['correlation']
                launch = launches[corr]
                owners = [o for o in ops if within(iv(launch), iv(o)) and o['tid'] == launch['tid']]
                self.assertEqual(len(owners), 1)
                per_op[owners[0]['name']] += us_to_ns(e['dur'])
                s, f = flows_s[corr], flows_f[corr]
                self.assertEqual((s['pid'], s['tid'], s['ts']), (launch['pid'], launch['tid'], launch['ts']))
                self.assertEqual((f['pid'], f['tid'], f['ts'], f['bp']), (e['pid'], e['tid'], e['ts'], 'e'))
                lat.append(us_to_ns(f['ts']) - us_to_ns(s['ts']))
                # the system's nrt_execute of this execution begins inside the launch call
                nrt = [x for x in d['spans'] if x['type'] == 'nrt_execute' and int(x['a']['nc_idx']) == e['args']['nc_idx']
                       and x['start'] <= sys_runs[(e['args']['nc_idx'], e['args']['exec_id'])][0] <= x['end']]
                self.assertEqual(len(nrt), 1)
                self.assertTrue(iv(launch)[0] <= nrt[0]['start'] <= iv(launch)[1])
            self.assertEqual(dict(per_op), er['kineto']['per_op_device_ns'])
            self.assertEqual({op: union_len([iv(e) for e in dev]) for op in per_op}, er['kineto']['per_op_device_union_ns'])
            self.assertEqual({'min': min(lat), 'max': max(lat)}, er['kineto']['flow_latency_ns'])
            busy, _ = device_union([iv(e) for e in dev])
            self.assertEqual(busy, er['kineto']['device_busy_ns'])
            self.assertEqual(busy, er['timeline']['device_busy_ns'])
            self.assertEqual(len(flows_s), len(dev))

    # ---- options, determinism, scale ----

    def test_capture_is_deterministic(self):
        again = os.path.join(self.tmp.name, 'cap-again')
        run_gen(again, '--seed', '21', '--layers', '3', '--cores', '2', '--instructions-per-layer', '80', '--capture',
                '--ranks', '2', '--executions', '4', '--kineto')
        for root, dirs, files in os.walk(self.cap.out):
            rel = os.path.relpath(root, self.cap.out)
            theirs = os.path.join(again, rel)
            self.assertEqual(sorted(files), sorted(n for n in os.listdir(theirs)
                                                   if os.path.isfile(os.path.join(theirs, n))))
            match, mismatch, errors = filecmp.cmpfiles(root, os.path.join(again, rel), files, shallow=False)
            self.assertEqual((mismatch, errors), ([], []), rel)

    def test_32_rank_capture_in_bounded_time(self):
        exp = self.many.expected
        self.assertLess(self.many.seconds, 10.0)
        self.assertEqual(len(exp['ranks']), 32)
        self.assertEqual(len({r['pid'] for r in exp['ranks']}), 32)
        self.assertEqual(len(exp['files']['capture_dirs']), 32)
        # r zero-padded, so that path order (neuronlens numbers ranks in path order) is rank order
        self.assertEqual(exp['files']['capture_dirs'], sorted(exp['files']['capture_dirs']))
        self.assertEqual([r['dir'] for r in exp['ranks']],
                         ['i-0synthetic%02d_pid_%d' % (r, er['pid']) for r, er in enumerate(exp['ranks'])])
        gaps = set()
        for r, er in enumerate(exp['ranks']):
            d = self.many.rank(r)
            self.assertEqual(d['ti']['pid'], er['pid'])
            self.assertEqual(d['kin']['distributedInfo'], dict(d['kin']['distributedInfo'], rank=r, world_size=32))
            gaps.add(tuple(er['timeline']['gaps_ns']))
        self.assertGreater(len(gaps), 1)  # ranks differ (their host ops take different times)

    def test_kineto_alone_is_written_at_the_top_level(self):
        out = os.path.join(self.tmp.name, 'kineto-only')
        run_gen(out, '--seed', '4', '--layers', '2', '--cores', '1', '--instructions-per-layer', '50', '--kineto')
        exp = load(os.path.join(out, 'expected.json'))
        self.assertTrue(os.path.exists(os.path.join(out, 'trace.json')))
        self.assertTrue(os.path.exists(os.path.join(out, 'profile_nc0.json')))
        self.assertFalse([n for n in os.listdir(out) if os.path.isdir(os.path.join(out, n))])
        self.assertEqual(exp['ranks'][0]['dir'], None)
        self.assertNotIn('system', exp['ranks'][0])
        self.assertEqual(exp['ranks'][0]['kineto']['file'], 'trace.json')
        k, _ = load_kineto(os.path.join(out, 'trace.json'))
        self.assertEqual(dict(collections.Counter(e['cat'] for e in k['traceEvents'] if 'cat' in e)),
                         exp['ranks'][0]['kineto']['by_category'])

    def test_kineto_target_bytes_sizes_the_trace_and_widens_the_gaps(self):
        out = os.path.join(self.tmp.name, 'kineto-sized')
        run_gen(out, '--seed', '4', '--layers', '1', '--cores', '1', '--instructions-per-layer', '50',
                '--kineto-target-bytes', '3M', '--capture')
        exp = load(os.path.join(out, 'expected.json'))
        er = exp['ranks'][0]
        size = os.path.getsize(os.path.join(out, er['kineto']['file']))
        self.assertLess(abs(size - 3 * 2 ** 20) / (3 * 2 ** 20), 0.02)
        self.assertGreater(exp['params']['kineto_ops_per_step'], 1000)
        d = decode_ntrace(os.path.join(out, er['dir'], 'ntrace.pb'),
                          dict(decode_trace_info(os.path.join(out, er['dir'], 'trace_info.pb'))['tables']['ntrace_inspect_type']))
        spans, _ = pair_spans(d)
        _, gaps = device_union([(s['start'], s['end']) for s in spans if s['type'] == 'nc_exec_running'])
        self.assertEqual(gaps, er['timeline']['gaps_ns'])
        self.assertGreater(min(gaps), 1000000)  # thousands of host ops between executions

    def test_bad_capture_arguments_exit_2(self):
        for args in (['--ranks', '2'], ['--ranks', '0', '--capture'], ['--ranks', '257', '--capture'],
                     ['--executions', '0'], ['--executions', '1001'], ['--kineto-target-bytes', 'x'],
                     ['--ranks']):
            rc = subprocess.run([GEN, '--out', os.path.join(self.tmp.name, 'bad'), *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            self.assertEqual(rc, 2, args)

    # ---- the neuronlens readers (skipped when the binary is not built) ----

    def neuronlens(self, tool, args):
        nl = os.environ.get('NEURONLENS') or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(GEN))),
                                                         'neuronlens')
        if not os.access(nl, os.X_OK):
            self.skipTest('neuronlens not built')
        res = subprocess.run([nl, 'call', tool, json.dumps(args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=60)
        self.assertEqual(res.returncode, 0, res.stderr.decode(errors='replace')[-2000:])
        return json.loads(res.stdout)

    def test_neuronlens_orient_and_summary_read_the_capture(self):
        out, exp = self.cap.out, self.cap.expected
        orient = self.neuronlens('orient', {'path': out})
        self.assertEqual([(r['id'], r['dir'], r['pid'], r['system_profile']) for r in orient['ranks']],
                         [('rank%d' % er['rank'], er['dir'], er['pid'], True) for er in exp['ranks']])
        systems = {p['id']: p for p in orient['profiles'] if p['kind'] == 'system'}
        for er in exp['ranks']:
            counts = systems['rank%d/system' % er['rank']]['counts']
            self.assertEqual((counts['events'], counts['executions']),
                             (er['system']['records']['ntrace'], er['system']['event_counts']['nc_exec_running']['begin']))
        self.assertEqual(sorted(p['id'] for p in orient['profiles'] if p['kind'] == 'framework'),
                         sorted(er['kineto']['file'] for er in exp['ranks']))
        for c, r in ((self.cap, 1), (self.many, 31)):
            er = c.expected['ranks'][r]
            tl, sy = er['timeline'], er['system']
            got = self.neuronlens('summary', {'path': c.out, 'profile': 'rank%d/system' % r})
            self.assertEqual(got['device']['busy_ns'], tl['device_busy_ns'])
            self.assertEqual((got['gaps']['count'], got['gaps']['total_ns']), (len(tl['gaps_ns']), tl['gap_total_ns']))
            self.assertEqual((got['clock_sync']['max_abs_error_ns'], got['clock_sync']['sync_points']),
                             (sy['sync']['max_abs_error_ns'], sy['sync']['points']))
            self.assertEqual((got['host_memory']['min_used_bytes'], got['host_memory']['max_used_bytes']),
                             (sy['host_mem']['min_bytes'], sy['host_mem']['max_bytes']))
            self.assertEqual(got['cpu']['max']['cpu'], sy['cpu']['max_cpu'])
            self.assertEqual(sorted((x['nc_idx'], x['exec_id'], x['device_span_ns'], x['launch_latency_ns'])
                                    for x in got['executions']['items']),
                             sorted((core['nc'], s['exec_id'], s['duration_ns'], s['launch_latency_ns'])
                                    for core in tl['nc_exec_running'] for s in core['spans']))
            kin = er['kineto']
            fw = self.neuronlens('summary', {'path': c.out, 'profile': kin['file']})
            self.assertEqual(fw['device']['busy_ns'], kin['device_busy_ns'])
            self.assertEqual({x['name']: x['device_ns'] for x in fw['top_ops_by_device_time']}, kin['per_op_device_ns'])
            self.assertEqual([(x['name'], x['wall_ns'], x['device_busy_ns']) for x in fw['steps']['items']],
                             [(x['name'], x['dur_ns'], x['device_busy_ns']) for x in kin['steps']])
            self.assertEqual((fw['compiled_regions']['count'], fw['compiled_regions']['total_ns']),
                             (kin['compiled_regions'], kin['compiled_region_ns']))

if __name__ == '__main__':
    GEN = generator()
    if not os.access(GEN, os.X_OK):
        print('nl-gen-profile not found at %s' % GEN, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], '-v'])
