"""One catalog for every tool (issue 10): orient's suggested calls never fail, and every tool sees the same
profiles at a path.

For every folder under ../shared/samples (when present) and for fixtures built here — a truncated export, a
show-session text dump, a -j dump, a folder of Parquet tables, an NTFF without its export, a Kineto trace, a
mixed folder — orient is paged to the end and every call in its next_calls is run through the real binary:
a call announced with expect "answer" must answer (no isError, not abstained), one announced with expect
"abstention" must abstain with the reason orient gave. The same wrong profile id passed to every tool gets the
same list of profiles back. The user-visible disagreements the issue lists are checked one by one.
Python stdlib only; `neuronlens call` is the real server code path.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from mcp_session import BINARY  # noqa: E402

SAMPLES = os.environ.get('NL_SAMPLES_DIR', '')
GENERATOR = os.path.join(os.environ.get('NL_BUILD_ROOT', 'build'), 'bench', 'nl-gen-profile')
TOOLS = ['summary', 'trace-extract', 'kernel-attribution', 'collective-gaps']

EXPORT = {
    'metadata': [{'first_hw_timestamp': 0, 'last_hw_timestamp': 5000, 'ntff_version': 5}],
    'summary': [{'total_time': 5e-6}],
    'instruction': [{'timestamp': 10 * i, 'duration': 5, 'evt_wait_time': 0, 'subgroup': 'Tensor', 'label': 'Tensor',
                     'opcode': 'MATMUL', 'id': i} for i in range(40)],
    'dma': [],
}


def call(tool, args):
    r = subprocess.run([BINARY, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=120)
    out = json.loads(r.stdout) if r.stdout.strip() else None
    return r.returncode, out, r.stderr


def dump_text(times):
    lines = ['Model Name: /tmp/model.neff', 'Total execution time: 90000 ns', 'Collectives trace for CC-core 8']
    lines += ['TPB_TRIGGER %d START' % t for t in times]
    return '\n'.join(lines) + '\n'


def ntff_bytes(uuid):
    """NTFF v5 with a header and metadata but no per-core message: byte 0 version, bytes 1..3 the metadata
    length, 124 opaque bytes, then the metadata message (field 1 the NEFF name, field 2 the uuid plus 6
    bytes), then 64 bytes no core claims (formats.md §3)."""
    name = b'model.neff'
    meta = bytes([0x0a, len(name)]) + name + bytes([0x12, 22]) + uuid + b'\0' * 6
    head = bytes([5]) + struct.pack('<I', len(meta))[:3] + b'\0' * 124
    return head + meta + b'\0' * 64


class NextCalls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='nl_e2e_catalog_')
        cls.fixtures = {}

        def folder(name, files):
            d = os.path.join(cls.dir, name)
            for rel, data in files.items():
                p = os.path.join(d, rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, 'wb') as f:
                    f.write(data if isinstance(data, bytes) else data.encode())
            cls.fixtures[name] = d
            return d

        export = json.dumps(EXPORT)
        folder('truncated', {'cut.json': export[:len(export) // 2]})
        folder('dump', {'session.show_session.txt': dump_text([100 * i for i in range(12)])})
        folder('jdump', {'session.json': json.dumps(
            {'Name': 'm.neff', 'NeffNodes': [{'NodeInfo': {'Graphs': [{'NC': 0, 'CycleCount': 10}]}}]})})
        folder('parquet', {'Instruction.parquet': b'PAR1' + b'\0' * 32 + b'PAR1',
                           'Summary.parquet': b'PAR1' + b'\0' * 32 + b'PAR1'})
        folder('ntff_header_only', {'run.ntff': ntff_bytes(bytes(range(16)))})
        os.makedirs(os.path.join(cls.dir, 'ntff_only'))
        subprocess.run([GENERATOR, '--ntff-out', os.path.join(cls.dir, 'ntff_only', 'run.ntff'), '--cores', '2', '--ntff-version', '6',
                        '--ntff-target-bytes', '200000'], check=True, capture_output=True)
        cls.fixtures['ntff_only'] = os.path.join(cls.dir, 'ntff_only')
        folder('kineto', {'trace.json': json.dumps({'traceEvents': [
            {'ph': 'X', 'name': 'aten::mm', 'ts': 10, 'dur': 5, 'pid': 1, 'tid': 1},
            {'ph': 'X', 'name': 'aten::add', 'ts': 20, 'dur': 3, 'pid': 1, 'tid': 1}]})})
        folder('mixed', {'profile.json': export, 'profile.show_session.txt': dump_text([50 * i for i in range(9)]),
                         'trace.json': json.dumps({'traceEvents': [
                             {'ph': 'X', 'name': 'step', 'ts': 1, 'dur': 2, 'pid': 1, 'tid': 1}]})})

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def orient_all(self, path):
        """Every page of orient: (profiles, next_calls of each page)."""
        profiles, calls, cursor = [], [], None
        for _ in range(100):
            args = {'path': path, 'max_rows': 4}
            if cursor:
                args['cursor'] = cursor
            rc, out, err = call('orient', args)
            self.assertEqual(rc, 0, err)
            profiles += out['profiles']
            calls += out['next_calls']
            cursor = out['next_cursor']
            if not cursor:
                return profiles, calls
        self.fail('orient did not finish paging')

    def check_folder(self, path):
        profiles, calls = self.orient_all(path)
        for p in profiles:
            self.assertIn(p['kind'], ['device', 'system', 'framework', 'show_session', 'memory'], p)
            self.assertEqual(sorted(p['analyses']), sorted(TOOLS), p)
            for state in p['analyses'].values():
                self.assertIn(state, ['ready', 'needs_export', 'unsupported'])
        for c in calls:
            with self.subTest(path=path, call=c):
                state = next(p for p in profiles if p['id'] == c['arguments'].get('profile', p['id']))
                self.assertEqual(state['analyses'][c['tool']], 'ready' if c['expect'] == 'answer' else 'needs_export')
                rc, out, err = call(c['tool'], c['arguments'])
                self.assertEqual(rc, 0, '%s %s: %s %s' % (c['tool'], c['arguments'], err, out))
                if c['expect'] == 'answer':
                    self.assertNotEqual(out.get('status'), 'abstained', out.get('abstained'))
                else:
                    self.assertEqual(out['status'], 'abstained')
        return profiles, calls

    def test_every_suggested_call_on_the_fixtures_succeeds_or_abstains_as_announced(self):
        seen = {}
        for name, path in sorted(self.fixtures.items()):
            profiles, calls = self.check_folder(path)
            seen[name] = (profiles, calls)
        # the dump folder names the dump as a profile and suggests the call that reads it
        profiles, calls = seen['dump']
        self.assertEqual([p['kind'] for p in profiles], ['show_session'])
        self.assertEqual(calls[0]['tool'], 'collective-gaps')
        self.assertEqual(calls[0]['expect'], 'answer')
        # Parquet tables are listed, nothing is suggested that would fail
        profiles, calls = seen['parquet']
        self.assertEqual(profiles[0]['analyses']['summary'], 'unsupported')
        self.assertEqual(calls, [])
        # a truncated export is not ready: no summary is suggested, and summary says where the file ends
        profiles, calls = seen['truncated']
        self.assertEqual(profiles[0]['analyses']['summary'], 'unsupported')
        self.assertEqual(calls, [])
        rc, out, _ = call('summary', {'path': self.fixtures['truncated']})
        self.assertEqual(rc, 1)
        size = os.path.getsize(os.path.join(self.fixtures['truncated'], 'cut.json'))
        self.assertIn('cut off at byte %d' % size, out['message'])
        # an NTFF alone is decoded natively: summary answers, saying how far the decode is trusted
        profiles, calls = seen['ntff_only']
        self.assertEqual(profiles[0]['analyses']['summary'], 'ready')
        self.assertEqual(calls[0], {'tool': 'summary', 'arguments': {'path': self.fixtures['ntff_only']},
                                    'why': 'headline numbers, bottleneck and rule findings', 'expect': 'answer'})
        rc, out, _ = call('summary', calls[0]['arguments'])
        self.assertEqual(out['provenance']['decoded']['trust'], 'unverified')
        self.assertGreater(out['instructions'], 0)
        instructions = out['instructions']
        # ... and its rows page like an export's (the device model of a decoded NTFF feeds the same timeline)
        rc, out, _ = call('trace-extract', {'path': self.fixtures['ntff_only'], 'max_rows': 3})
        self.assertEqual(rc, 0, out)
        self.assertEqual((out['total'], out['shown']), (instructions, 3))
        # an NTFF whose metadata holds no core: nothing to decode, and orient says so instead of suggesting a call
        profiles, calls = seen['ntff_header_only']
        self.assertEqual(profiles[0]['analyses']['summary'], 'unsupported')
        self.assertEqual(calls, [])
        # a -j dump cannot feed collective-gaps: nothing is suggested
        profiles, calls = seen['jdump']
        self.assertEqual(profiles[0]['analyses']['collective-gaps'], 'unsupported')
        self.assertEqual(calls, [])
        # the mixed folder: the dump belongs to the export's profile, not a profile of its own
        profiles, calls = seen['mixed']
        self.assertEqual(sorted(p['id'] for p in profiles), ['profile', 'trace.json'])
        self.assertEqual(next(p for p in profiles if p['id'] == 'profile')['analyses']['collective-gaps'], 'ready')

    def test_every_tool_lists_the_same_profiles_for_an_unknown_id(self):
        for name in ('mixed', 'kineto', 'dump'):
            messages = set()
            for tool in TOOLS:
                rc, out, _ = call(tool, {'path': self.fixtures[name], 'profile': 'nope'})
                self.assertEqual(rc, 1, tool)
                messages.add(out['message'].split('Profiles there: ', 1)[1])
            self.assertEqual(len(messages), 1, messages)

    @unittest.skipUnless(SAMPLES and os.path.isdir(SAMPLES), 'samples absent (NL_SAMPLES_DIR)')
    def test_every_suggested_call_on_the_samples_succeeds_or_abstains_as_announced(self):
        folders = [SAMPLES]
        for root, dirs, _ in os.walk(SAMPLES):
            folders += [os.path.join(root, d) for d in sorted(dirs)]
        for path in folders:
            self.check_folder(path)

    @unittest.skipUnless(SAMPLES and os.path.isdir(SAMPLES), 'samples absent (NL_SAMPLES_DIR)')
    def test_the_disagreements_the_issue_lists_are_gone(self):
        kineto = os.path.join(SAMPLES, 'kineto')
        rc, out, _ = call('summary', {'path': kineto, 'profile': 'nccl'})
        self.assertEqual(rc, 1)
        self.assertIn("no profile 'nccl'", out['message'])
        self.assertIn('compare_base.json.gz (framework)', out['message'])
        capture = os.path.join(SAMPLES, 'capture')
        rc, out, _ = call('collective-gaps', {'path': capture, 'profile': 'rank0/sytem'})
        self.assertEqual(rc, 1)
        self.assertIn('rank0/system (system)', out['message'])
        self.assertIn('rank0/profile_exec_2 (device, NTFF only)', out['message'])
        # an export's own path is paired with the NTFF beside it, as its folder is
        export = os.path.join(SAMPLES, 'neuron-profile-json', 'profile_128x128x136.json')
        rc, out, _ = call('orient', {'path': export})
        self.assertEqual(rc, 0)
        self.assertEqual(len(out['profiles']), 1)
        p = out['profiles'][0]
        self.assertEqual(p['files']['ntff'], 'profile_128x128x136.ntff')
        self.assertEqual(p['export_link'], 'uuid_and_filename')
        self.assertNotIn('export_unattached', json.dumps(out['data_quality']) + json.dumps(p['data_quality']))


if __name__ == '__main__':
    unittest.main(verbosity=2)
