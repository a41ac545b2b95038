#!/usr/bin/env python3
"""Tests for bench/nl-gen-profile, the deterministic synthetic profile generator.

The generator's expected.json is its own claim; every check here recomputes the numbers independently
from the written files (instruction and DMA records, active_time, summary, summary-json, show-session
text and -j JSON) and compares them with that claim, with each other and with the formats.md rules.
Busy time follows the real exports: the union of each engine's instruction intervals without
EVENT_SEMAPHORE (its duration is blocked time), zero-length instructions kept as zero-length rows.
The library checks (nl-gen-write-check, next to the generator) run too when built.
Stdlib only. Usage: test_gen_profile.py [GENERATOR]; otherwise $NL_GEN_PROFILE or
$NL_BUILD_ROOT/bench/nl-gen-profile.
"""
import collections
import filecmp
import json
import math
import os
import re
import subprocess
import sys
import tempfile
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


if __name__ == '__main__':
    GEN = generator()
    if not os.access(GEN, os.X_OK):
        print('nl-gen-profile not found at %s' % GEN, file=sys.stderr)
        sys.exit(1)
    unittest.main(argv=[sys.argv[0], '-v'])
