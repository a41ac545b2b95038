"""orient and summary on the real samples in ../shared/samples, checked against an independent
Python-stdlib reading of the same files (issue 3). Skips (exit 77) with the reason when the samples
are absent. Runs the real binary: `neuronlens call` and a stdio session for the cache test.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'e2e'))
from mcp_session import BINARY, Session  # noqa: E402

SAMPLES = os.environ.get('NL_SAMPLES_DIR', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared', 'samples'))
EXPORTS = ['profile_128x128x136', 'profile_128x128x512', 'profile_128x128x1024']
ENGINES = ['tensor', 'vector', 'scalar', 'gpsimd', 'sync']


def call(tool, args, env=None):
    r = subprocess.run([BINARY, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=60,
                       env=env)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


def union(intervals):
    total, cur = 0, None
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
            continue
        if cur:
            total += cur[1] - cur[0]
        cur = [s, e]
    return total + (cur[1] - cur[0] if cur else 0)


def reference(path):
    """Independent aggregation of a full JSON export with the stdlib json module."""
    with open(path) as f:
        d = json.load(f)
    s, mi = d['summary'][0], d['model_info'][0]
    ref = {'instructions': len(d['instruction']), 'engines': {}}
    for e in ENGINES:
        ins = [i for i in d['instruction'] if i['subgroup'].lower() == e]
        ref['engines'][e] = {
            'instructions': len(ins),
            'summed_duration_ns': sum(i['duration'] for i in ins),
            'summed_evt_wait_ns': sum(i.get('evt_wait_time', 0) for i in ins),
            'busy_ns_from_instructions': union([(i['timestamp'], i['timestamp'] + i['duration'])
                                                for i in ins if i['opcode'] != 'EVENT_SEMAPHORE']),
            'export_active_time_rows_ns': union([(a['start_ts'], a['end_ts']) for a in d['active_time'] if a['engine'] == e]),
            'model_info_instruction_count': mi[e + '_engine_instruction_count'],
            'summary_active_ns': s[e + '_engine_active_time'] * 1e9,
        }
    packets = [x for x in d['dma'] if x.get('aggregated') != 'yes' and x.get('duplicate') != 'yes']
    transfers = [x for x in d['dma'] if x.get('aggregated') == 'yes' and x.get('duplicate') != 'yes']
    ref['dma'] = {'records': len(d['dma']), 'packets': len(packets), 'packet_bytes': sum(x['transfer_size'] for x in packets),
                  'transfers': len(transfers), 'transfer_bytes': sum(x['transfer_size'] for x in transfers),
                  'packet_busy_ns': union([(x['timestamp'], x['timestamp'] + x['duration']) for x in packets])}
    ref['summary'] = s
    ref['uuid'] = d['neff_header'][0]['uuid']
    ref['warnings'] = d['warnings']
    return ref


@unittest.skipUnless(os.path.isdir(SAMPLES), 'samples absent')
class SummaryOnRealExports(unittest.TestCase):
    def check_export(self, stem):
        path = os.path.join(SAMPLES, 'neuron-profile-json', stem + '.json')
        ref = reference(path)
        rc, out, err = call('summary', {'path': path})
        self.assertEqual(rc, 0, err)
        self.assertEqual(out['status'], 'complete')
        s = ref['summary']
        self.assertAlmostEqual(out['total_time_ns'], s['total_time'] * 1e9, places=3)
        self.assertEqual(out['instructions'], ref['instructions'])
        for got in out['engines']:
            want = ref['engines'][got['engine']]
            for key in ['instructions', 'summed_duration_ns', 'summed_evt_wait_ns', 'busy_ns_from_instructions',
                        'export_active_time_rows_ns', 'model_info_instruction_count']:
                self.assertEqual(got[key], want[key], (stem, got['engine'], key))
            # instruction counts per engine equal model_info (issue 3), summary active time as given
            self.assertEqual(got['instructions'], want['model_info_instruction_count'])
            self.assertAlmostEqual(got['active_time_ns'], want['summary_active_ns'], places=3)
            self.assertAlmostEqual(got['utilization_pct'], round(100 * want['summary_active_ns'] / (s['total_time'] * 1e9), 4), places=4)
            # busy time from instructions reproduces the export's active_time rows to the ns rounding per row
            self.assertLessEqual(abs(got['busy_ns_from_instructions'] - want['export_active_time_rows_ns']), 32)
        for key, value in ref['dma'].items():
            self.assertEqual(out['dma'][key], value, (stem, key))
        self.assertAlmostEqual(out['dma']['active_time_ns'], s['dma_active_time'] * 1e9, places=3)
        flops = out['flops']
        self.assertEqual(flops['model_flops'], s['model_flops'])
        self.assertEqual(flops['hardware_flops'], s['hardware_flops'])
        self.assertEqual(flops['transpose_flops'], s['transpose_flops'])
        for mine, theirs in [('mfu_pct', 'mfu_estimated_percent'), ('hfu_pct', 'hfu_estimated_percent'),
                             ('mbu_pct', 'mbu_estimated_percent')]:
            self.assertAlmostEqual(flops[mine], s[theirs] * 100, places=5)
        for key in ['hbm_read_bytes', 'hbm_write_bytes', 'sbuf_read_bytes', 'sbuf_write_bytes']:
            self.assertEqual(out['memory'][key], s[key])
        rules = {f['rule']: f for f in out['findings']}
        ratio = s['model_flops'] / s['hardware_flops']
        self.assertEqual(rules['model_flops_share']['status'], 'fired' if ratio < 0.5 else 'passed')
        self.assertAlmostEqual(rules['model_flops_share']['value'], ratio, places=5)
        tr = s.get('transpose_flops', 0) / s['hardware_flops']
        self.assertEqual(rules['transpose_flops_share']['status'], 'fired' if tr > 0.1 else 'passed')
        self.assertEqual(rules['collective_outliers']['status'], 'not_evaluated')
        codes = {q.get('code') for q in out['data_quality']}
        self.assertIn('dge_notifications_missing', codes)
        self.assertIn('no_source_locations', codes)
        self.assertIn('neff_missing_compiler_metrics', codes)
        self.assertEqual(out['provenance']['export']['profiler_version'], '2.27.33.0%kaena-tools/2.27@5d9c0b9')
        return out

    def test_x136(self):
        out = self.check_export('profile_128x128x136')
        # values printed in the sample (formats.md §4.3): static + software-dynamic DMA sizes
        self.assertEqual(out['dma']['summary']['static_dma_size'], 33868)
        self.assertEqual(out['dma']['summary']['software_dynamic_dma_size'], 102592)
        self.assertEqual(out['dma']['packets'], 243)

    def test_x512(self):
        self.check_export('profile_128x128x512')

    def test_x1024(self):
        self.check_export('profile_128x128x1024')

    def test_transpose_rule_calibration(self):
        values = {}
        for stem in EXPORTS:
            rc, out, _ = call('summary', {'path': os.path.join(SAMPLES, 'neuron-profile-json', stem + '.json')})
            values[stem] = {f['rule']: f for f in out['findings']}
        self.assertEqual([values[s]['transpose_flops_share']['status'] for s in EXPORTS], ['fired'] * 3)
        self.assertEqual([values[s]['model_flops_share']['status'] for s in EXPORTS], ['passed'] * 3)


@unittest.skipUnless(os.path.isdir(SAMPLES), 'samples absent')
class OrientOnSamples(unittest.TestCase):
    def test_samples_tree(self):
        rc, out, err = call('orient', {'path': SAMPLES, 'max_rows': 100})
        self.assertEqual(rc, 0, err)
        ids = {p['id']: p for p in out['profiles']}
        self.assertEqual(out['total'], len(out['profiles']))
        self.assertFalse(out['truncated'])
        cap = ids['rank0/profile_exec_2']
        self.assertEqual(cap['rank'], 'rank0')
        self.assertEqual(cap['pairing'], 'ok')
        self.assertEqual(cap['versions']['ntff_version'], 6)
        self.assertEqual(cap['versions']['runtime_version'], '2.30.51')
        self.assertEqual(cap['versions']['instance_type'], 'trn2.3xlarge')
        self.assertEqual(cap['versions']['neff_uuid'], 'f6620188117941679895f416ec8cb9b0')
        self.assertEqual(cap['analyses']['summary'], 'ready')  # decoded natively
        self.assertEqual(cap['analyses']['collective-gaps'], 'needs_export')  # show-session decodes its collectives
        self.assertEqual(ids['rank0/system']['kind'], 'system')
        self.assertEqual(ids['neff-ntff/stream_256k_fd1k']['versions']['ntff_version'], 4)
        self.assertEqual(ids['neff-ntff/stream_256k_fd1k']['versions']['instance_type'], 'trn1.2xlarge')
        self.assertEqual(ids['nki-kernel/profile_v6b_exec_2']['pairing'], 'ok')
        # An NTFF alone is decoded here; the note says so with the decoder's trust for its version and
        # architecture (only v5 on inf2 reproduces an export: ntff.md), never that an export is needed.
        for pid, version, arch in [('neff-ntff/stream_256k_fd1k', 4, 'trn1.2xlarge'),
                                   ('neff-ntff/stream_256k_fd1k_trn2', 5, 'trn2.3xlarge'),
                                   ('rank0/profile_exec_2', 6, 'trn2.3xlarge')]:
            notes = [q for q in ids[pid]['data_quality'] if 'decoded from the NTFF itself' in q['problem']]
            self.assertEqual(len(notes), 1, ids[pid]['data_quality'])
            self.assertIn('(v%d, %s), unverified:' % (version, arch), notes[0]['problem'])
            self.assertEqual(notes[0]['severity'], 'warning')
        for stem in EXPORTS:  # an export is attached: nothing is decoded from the NTFF, no such note
            dq = ids['neuron-profile-json/' + stem]['data_quality']
            self.assertFalse([q for q in dq if 'decoded from the NTFF itself' in q['problem']], dq)
        for stem in EXPORTS:
            p = ids['neuron-profile-json/' + stem]
            ref = reference(os.path.join(SAMPLES, 'neuron-profile-json', stem + '.json'))
            self.assertEqual(p['versions']['neff_uuid'], ref['uuid'])  # NTFF uuid pairs with neff_header.uuid
            self.assertIn(p['export_link'], ['uuid', 'uuid_and_filename'])
            self.assertEqual(p['counts']['instructions'], ref['instructions'])
            self.assertEqual(p['counts']['dma_records'], ref['dma']['records'])
            self.assertEqual(p['analyses']['summary'], 'ready')
        kinds = collections.Counter(p['kind'] for p in out['profiles'])
        self.assertEqual(kinds, {'device': 7, 'system': 1, 'framework': 7, 'memory': 5})
        self.assertEqual(out['ranks'][0]['dir'], 'capture/i-0af76a70a6d3864dd_pid_713479')
        self.assertEqual(out['ranks'][0]['pid'], 713479)
        self.assertTrue(out['ranks'][0]['system_profile'])

    def test_pages_concatenate_to_the_full_list(self):
        _, full, _ = call('orient', {'path': SAMPLES, 'max_rows': 100})
        ids, cursor = [], None
        while True:
            args = {'path': SAMPLES, 'max_rows': 4}
            if cursor:
                args['cursor'] = cursor
            rc, page, err = call('orient', args)
            self.assertEqual(rc, 0, err)
            ids += [p['id'] for p in page['profiles']]
            cursor = page['next_cursor']
            if not cursor:
                break
        self.assertEqual(ids, [p['id'] for p in full['profiles']])
        rc, out, _ = call('orient', {'path': SAMPLES, 'cursor': 'bogus'})
        self.assertEqual(rc, 1)
        self.assertIn('cursor', out['message'])

    def test_ntff_without_export_is_decoded_natively_with_its_trust(self):
        cap = os.path.join(SAMPLES, 'capture', 'i-0af76a70a6d3864dd_pid_713479')
        env = dict(os.environ, PATH='/usr/bin:/bin', NEURONLENS_NEURON_PROFILE='')
        rc, out, err = call('summary', {'path': cap}, env=env)
        self.assertEqual(rc, 1)  # a device profile (decoded natively) and a system profile: the caller chooses
        self.assertIn('rank0/profile_exec_2 (device, NTFF only), rank0/system (system)', out['message'])
        rc, out, err = call('summary', {'path': cap, 'profile': 'rank0/profile_exec_2'}, env=env)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out['status'], 'complete')
        dec = out['provenance']['decoded']
        self.assertEqual((dec['ntff_version'], dec['architecture'], dec['trust']), (6, 'trn2', 'unverified'))
        self.assertEqual(dec['core'], 'sg00')  # the busier of the two physical cores (4 and 5)
        self.assertTrue(any('decoded natively from NTFF v6' in q['problem'] and q['severity'] == 'warning'
                            for q in out['data_quality']), out['data_quality'])
        self.assertTrue(any('absent (not zero)' in q['problem'] for q in out['data_quality']))
        rc, other, err = call('summary', {'path': cap, 'profile': 'rank0/profile_exec_2@core5'}, env=env)
        self.assertEqual(rc, 0, err)
        self.assertEqual(other['provenance']['decoded']['core'], 'sg01')
        self.assertLess(other['instructions'], out['instructions'])
        rc, bad, _ = call('summary', {'path': cap, 'profile': 'rank0/profile_exec_2@core9'}, env=env)
        self.assertEqual(rc, 1)
        self.assertIn('no physical core 9', bad['message'])
        self.assertEqual(out['provenance']['ntff_version'], 6)
        self.assertEqual(out['provenance']['runtime_version'], '2.30.51')
        self.assertEqual(out['provenance']['pairing'], 'ok')
        self.assertEqual(out['profile']['rank'], 'rank0')


@unittest.skipUnless(os.path.isdir(SAMPLES), 'samples absent')
class CacheAndAdapter(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='nl-samples-')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_second_summary_does_not_reread_the_file(self):
        src = os.path.join(SAMPLES, 'neuron-profile-json', 'profile_128x128x512.json')
        path = os.path.join(self.tmp, 'p.json')
        shutil.copy(src, path)
        with Session() as s:
            s.initialize()
            first = s.call('tools/call', {'name': 'summary', 'arguments': {'path': path}})['result']['structuredContent']
            self.assertEqual(first['provenance']['model']['cache'], 'cold')
            # garble the middle of the instruction array but keep size and mtime: a re-read would fail to parse
            st = os.stat(path)
            with open(path, 'rb') as f:
                data = f.read()
            garbled_at = data.index(b'"opcode"', len(data) // 3)
            with open(path, 'r+b') as f:
                f.seek(garbled_at)
                f.write(b'#' * 64)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            second = s.call('tools/call', {'name': 'summary', 'arguments': {'path': path}})['result']['structuredContent']
            self.assertEqual(second['provenance']['model']['cache'], 'warm')
            self.assertEqual(second['engines'], first['engines'])
            # a changed mtime is a new key: the garbled file is read and reported with its byte offset
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
            r = s.call('tools/call', {'name': 'summary', 'arguments': {'path': path}})['result']
            self.assertTrue(r['isError'])
            self.assertIn('at byte %d' % garbled_at, r['content'][0]['text'])
            self.assertEqual(s.call('ping')['result'], {})

    def test_truncated_export_is_a_structured_error_with_offset(self):
        src = os.path.join(SAMPLES, 'neuron-profile-json', 'profile_128x128x136.json')
        with open(src, 'rb') as f:
            data = f.read()
        path = os.path.join(self.tmp, 'cut.json')
        with open(path, 'wb') as f:
            f.write(data[:len(data) // 2])
        rc, out, err = call('summary', {'path': path})
        self.assertEqual(rc, 1)
        self.assertIn('cut.json', out['message'])
        self.assertIn('at byte %d' % (len(data) // 2), out['message'])

    def test_summary_json_input_reports_the_record_and_the_summary_only_rules(self):
        with open(os.path.join(SAMPLES, 'neuron-profile-json', 'profile_128x128x1024.json')) as f:
            s = json.load(f)['summary'][0]
        path = os.path.join(self.tmp, 'summary.json')
        with open(path, 'w') as f:
            json.dump({'n_' + '0f' * 20: s, 'n_' + 'e1' * 20: s}, f)
        rc, out, _ = call('summary', {'path': path})
        self.assertEqual(rc, 1)
        self.assertIn('summary.json#n_' + '0f' * 20, out['message'])
        rc, out, err = call('summary', {'path': self.tmp, 'profile': 'summary.json#n_' + 'e1' * 20})
        self.assertEqual(rc, 0, err)
        self.assertEqual(out['profile']['source'], 'summary-json')
        self.assertAlmostEqual(out['total_time_ns'], s['total_time'] * 1e9, places=3)
        eng = {e['engine']: e for e in out['engines']}
        self.assertAlmostEqual(eng['tensor']['active_time_ns'], s['tensor_engine_active_time'] * 1e9, places=3)
        self.assertEqual(eng['tensor']['instructions'], s['tensor_engine_instruction_count'])
        self.assertAlmostEqual(out['flops']['mfu_pct'], s['mfu_estimated_percent'] * 100, places=5)
        rules = {f['rule']: f['status'] for f in out['findings']}
        self.assertEqual(rules['transpose_flops_share'], 'fired')
        self.assertEqual(rules['small_dma'], 'not_evaluated')
        self.assertEqual(rules['nki_coverage'], 'not_evaluated')
        rc, listing, _ = call('orient', {'path': self.tmp})
        self.assertEqual([(p['id'], p['source']) for p in listing['profiles']], [('summary.json', 'summary-json')])

    def test_neuron_profile_adapter_produces_and_caches_the_export(self):
        cap = os.path.join(SAMPLES, 'neuron-profile-json')
        work = os.path.join(self.tmp, 'p')
        os.mkdir(work)
        shutil.copy(os.path.join(cap, 'profile_128x128x136.ntff'), work)
        tool = os.path.join(self.tmp, 'neuron-profile')
        with open(tool, 'w') as f:
            f.write('#!/bin/sh\n# fake neuron-profile: "exports" by copying the real sample export\n'
                    'echo "$@" >> %s/calls\n'
                    'while [ $# -gt 0 ]; do [ "$1" = --output-file ] && cp %s "$2"; shift; done\n'
                    % (self.tmp, os.path.join(cap, 'profile_128x128x136.json')))
        os.chmod(tool, 0o755)
        env = dict(os.environ, NEURONLENS_NEURON_PROFILE=tool, NEURONLENS_CACHE_DIR=os.path.join(self.tmp, 'cache'))
        for _ in range(2):
            rc, out, err = call('summary', {'path': work}, env=env)
            self.assertEqual(rc, 0, err)
            self.assertEqual(out['status'], 'complete')
            self.assertEqual(out['instructions'], 127)
        with open(os.path.join(self.tmp, 'calls')) as f:
            calls = f.read().splitlines()
        self.assertEqual(len(calls), 1)  # the second call reused the cached export
        self.assertIn('view -s ', calls[0])
        self.assertIn('profile_128x128x136.ntff --output-format json --output-file', calls[0])


if __name__ == '__main__':
    if not os.path.isdir(SAMPLES):
        print('SKIP: samples not found at %s (they live in ../shared/samples beside the repository)' % SAMPLES)
        sys.exit(77)
    unittest.main(verbosity=2)
