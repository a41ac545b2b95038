"""orient and summary on what a NEFF says by itself (issue 12.5), against test_neff_static.py's stdlib-Python
reading of the same real NEFFs (tarfile + a protobuf walker; no code shared with the C side). Skips (exit 77)
with the reason when the samples are absent.

Per sample NEFF, copied alone into a temporary directory (the samples are never copied into the repository):
orient lists it as a `program` profile ready for summary only, with its uuid, compiler, target, instruction
slots, kernel and HLO counts; summary answers with every engine's slots summed over the subgraphs, the kernels
with their source, the HLO count, the compiler's hlo_stats (its -1 "not computed" left out) and says a NEFF
holds no run; trace-extract abstains with that reason. With its NTFF beside it (the sample directories),
the device summary carries the same `program`. A NEFF cut in half is an error naming the file, not a profile.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'e2e'))
from mcp_session import BINARY  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.environ.get('NL_SAMPLES_DIR', '')


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


NEFF_REF = load('test_neff_static', os.path.join(HERE, 'test_neff_static.py'))
NTFF_REF = load('ref_ntff', os.path.join(HERE, 'ref_ntff.py'))


def call(tool, args):
    r = subprocess.run([BINARY, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=120)
    return r.returncode, json.loads(r.stdout) if r.stdout.strip() else None, r.stderr


def expected_program(path):
    """What summary's `program` must say, from the Python reading and the NEFF header bytes."""
    ref = NEFF_REF.reference(path, NTFF_REF)
    head = open(path, 'rb').read(1024)
    slots = {}
    for sg in ref['subgraphs'].values():
        for stem, e in sg['engines'].items():
            if 'slots' in e:
                slots[stem] = slots.get(stem, 0) + e['slots']
    return {
        'neff_uuid': head[204:220].hex(),
        'compiler_version': ref['tool_version'],
        'target': ref['kelf_target'],
        'subgraphs': len(ref['subgraphs']),
        'instruction_slots': sum(slots.values()),
        'instruction_slots_by_engine': slots,
        'kernels': [{'name': k[0], 'source_file': k[2], 'source_line': k[3] if k[3] is not None and k[3] >= 0 else None}
                    for k in ref['kernels'][:8]],
        'kernels_total': len(ref['kernels']),
        'hlo_instructions': len(ref['hlo']),
        'hlo_stats': {k: v for k, v in ref['hlo_stats'].items() if v >= 0},
        'compiler_metrics_total': len(ref['metrics']),
    }


def neffs():
    out = []
    for root, _, files in os.walk(SAMPLES):
        out += [os.path.join(root, f) for f in files if f.endswith('.neff')]
    return sorted(out)


@unittest.skipUnless(SAMPLES and os.path.isdir(SAMPLES), 'NL_SAMPLES_DIR is not a directory: no real NEFF samples')
class ProgramProfiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='nl-program-')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_a_neff_alone(self):
        self.assertTrue(neffs(), 'no .neff under the samples')
        for path in neffs():
            with self.subTest(neff=os.path.relpath(path, SAMPLES)):
                d = os.path.join(self.tmp, os.path.basename(path) + '.d')
                os.mkdir(d)
                lone = os.path.join(d, os.path.basename(path))
                shutil.copyfile(path, lone)
                want = expected_program(path)
                rc, o, err = call('orient', {'path': d})
                self.assertEqual(rc, 0, err)
                self.assertEqual(len(o['profiles']), 1)
                p = o['profiles'][0]
                self.assertEqual(p['kind'], 'program')
                self.assertEqual(p['analyses'], {'summary': 'ready', 'trace-extract': 'unsupported',
                                                 'kernel-attribution': 'unsupported', 'collective-gaps': 'unsupported'})
                for k in ('neff_uuid', 'compiler_version', 'target', 'instruction_slots', 'kernels_total',
                          'hlo_instructions'):
                    self.assertEqual(p['program'][k], want[k], k)
                self.assertEqual([c['tool'] for c in o['next_calls']], ['summary'])
                rc, s, err = call('summary', {'path': lone})
                self.assertEqual(rc, 0, err)
                self.assertEqual(s['status'], 'complete')
                self.assertEqual(s['profile']['kind'], 'program')
                for k, v in want.items():
                    self.assertEqual(s['program'][k], v, k)
                self.assertTrue(any('not a run' in q['problem'] for q in s['data_quality']), s['data_quality'])
                rc, t, err = call('trace-extract', {'path': lone})  # valid input it cannot analyse: abstains
                self.assertEqual(rc, 0, err)
                self.assertEqual((t['status'], t['total']), ('abstained', 0))
                self.assertIn('compiled program', t['abstained']['reason'])

    def test_the_device_summary_carries_its_neff(self):
        for rel in ('nki-kernel', 'neff-ntff'):
            d = os.path.join(SAMPLES, rel)
            if not os.path.isdir(d):
                continue
            rc, o, err = call('orient', {'path': d})
            self.assertEqual(rc, 0, err)
            for p in o['profiles']:
                with self.subTest(profile=p['id']):
                    self.assertEqual(p['kind'], 'device')
                    rc, s, err = call('summary', {'path': d, 'profile': p['id']})
                    self.assertEqual(rc, 0, err)
                    want = expected_program(os.path.join(d, p['files']['neff']))
                    for k, v in want.items():
                        self.assertEqual(s['program'][k], v, k)

    def test_a_cut_neff_is_an_error_naming_the_file(self):
        path = neffs()[0]
        cut = os.path.join(self.tmp, 'cut.neff')
        data = open(path, 'rb').read()
        open(cut, 'wb').write(data[:len(data) // 2])
        rc, s, err = call('summary', {'path': cut})
        self.assertNotEqual(rc, 0)
        self.assertTrue(s['isError'])
        self.assertIn('cut.neff', s['message'])


if __name__ == '__main__':
    unittest.main()
