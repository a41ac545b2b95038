"""End-to-end regression: host-side profiles are cached like device models, and what a warm call answers is
what a cold one does.

System models (ntrace.pb + trace_info.pb + cpu_util.pb + host_mem.pb) and framework models (trace.json) used
to be read on every tool call (about 6 s for a 1 GB trace.json), and their summaries and the host-device
join recomputed. Now each is read once per version of its files (tools/memo.h) and the summaries are kept
with the model. On a capture written by bench/nl-gen-profile (--capture --kineto) this test checks:
  - a second call of every host-side tool returns the first call's structuredContent, except
    provenance.model, which says cold then warm;
  - a warm server's answers equal a fresh server's (the uncached answer);
  - concurrent first calls share one read and agree;
  - rewriting ntrace.pb, a companion file (cpu_util.pb) or trace.json is noticed (size and mtime), and a
    cut-off file then reads as status "partial" with partial: true;
  - host_device: execution_list[].thread_matched agrees with executions.launch_thread_matched, and device
    time is named device_union_ns / device_core_sum_ns;
  - a torch 1.x trace.json that is a bare JSON array is found and summarized (catalog: Kineto).
Every result is validated against its tool's output schema. Stdlib only; the generator's path is the first
argument (meson passes it), else $NL_BUILD_ROOT/bench/nl-gen-profile.
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from mcp_session import Session, schema_errors

GEN = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.environ.get('NL_BUILD_ROOT', 'build'), 'bench',
                                                              'nl-gen-profile')
CAP = 'i-0synthetic0_pid_4242'
SYSTEM = 'rank0/system'
TRACE = CAP + '/trace.json'

# (tool, arguments without path); the capture's root is added per call
CALLS = [
    ('summary', {'profile': SYSTEM}),
    ('summary', {'profile': TRACE}),
    ('trace-extract', {'profile': SYSTEM, 'kind': 'system', 'sort': 'duration', 'max_rows': 5}),
    ('trace-extract', {'profile': TRACE, 'kind': 'framework', 'max_rows': 5}),
    ('collective-gaps', {'profile': SYSTEM}),
    ('collective-gaps', {'profile': TRACE}),
]


def cut(path, keep):
    """Rewrite `path` with its first keep(len) bytes."""
    with open(path, 'rb') as f:
        data = f.read()
    with open(path, 'wb') as f:
        f.write(data[:keep(len(data))])


def without_load_facts(out):
    """structuredContent minus provenance.model, which says whether *this* call read the files."""
    out = copy.deepcopy(out)
    out.get('provenance', {}).pop('model', None)
    return out


class HostWarmCalls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix='nl_e2e_host_warm_')
        cls.root = os.path.join(cls.dir, 'gen')
        subprocess.run([GEN, '--out', cls.root, '--capture', '--kineto', '--quiet'], check=True)
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

    def ok(self, s, tool, args):
        r = s.call('tools/call', {'name': tool, 'arguments': args}, timeout=120)['result']
        self.assertNotIn('isError', r, '%s %s: %s' % (tool, args, r['content'][0]['text']))
        out = r['structuredContent']
        self.assertEqual(schema_errors(self.schemas[tool], out), [], tool)
        return out

    def copy_capture(self, name):
        root = os.path.join(self.dir, name)
        shutil.copytree(self.root, root)
        return root

    def test_a_second_call_equals_the_first_and_reads_nothing(self):
        s = self.session()
        for tool, args in CALLS:
            a = dict(args, path=self.root)
            first, second = self.ok(s, tool, a), self.ok(s, tool, a)
            self.assertEqual(without_load_facts(first), without_load_facts(second), '%s %s' % (tool, args))
        for profile in (SYSTEM, TRACE):
            warm = self.ok(s, 'summary', {'path': self.root, 'profile': profile})
            self.assertEqual(warm['provenance']['model']['cache'], 'warm', profile)
            self.assertEqual(warm['provenance']['model']['load_ms'], 0, profile)
            self.assertGreater(warm['provenance']['model']['bytes'], 0, profile)
            self.assertEqual(warm['status'], 'complete', profile)
            self.assertIs(warm['partial'], False, profile)

    def test_a_warm_servers_answers_equal_a_fresh_servers(self):
        warm = self.session()
        for tool, args in CALLS:  # every model, summary and join cached, in this order
            self.ok(warm, tool, dict(args, path=self.root))
        for tool, args in reversed(CALLS):
            a = dict(args, path=self.root)
            fresh = self.ok(self.session(), tool, a)
            self.assertEqual(fresh.get('provenance', {}).get('model', {}).get('cache', 'cold'), 'cold')
            self.assertEqual(without_load_facts(self.ok(warm, tool, a)), without_load_facts(fresh), '%s %s' % (tool, args))

    def test_concurrent_first_calls_agree(self):
        s = self.session()
        for profile in (SYSTEM, TRACE):
            args = {'path': self.root, 'profile': profile}
            ids = [s.request('tools/call', {'name': 'summary', 'arguments': args}) for _ in range(4)]
            got = {}
            while len(got) < len(ids):  # workers answer in any order
                msg = s.read(timeout=120)
                if msg is not None and 'method' not in msg:
                    got[msg['id']] = msg['result']
            outs = [got[i]['structuredContent'] for i in ids]
            self.assertEqual(sorted(o['provenance']['model']['cache'] for o in outs), ['cold', 'warm', 'warm', 'warm'])
            for o in outs:
                self.assertEqual(without_load_facts(o), without_load_facts(outs[0]), profile)

    def test_rewritten_files_are_read_again(self):
        root = self.copy_capture('rewrite')
        cap = os.path.join(root, CAP)
        s = self.session()
        sys_args, fw_args = {'path': root, 'profile': SYSTEM}, {'path': root, 'profile': TRACE}
        before_sys, before_fw = self.ok(s, 'summary', sys_args), self.ok(s, 'summary', fw_args)
        self.assertEqual(before_sys['status'], 'complete')

        # a companion file: cpu_util.pb cut to its first half (ntrace.pb untouched)
        cut(os.path.join(cap, 'cpu_util.pb'), lambda n: n // 2)
        out = self.ok(s, 'summary', sys_args)
        self.assertEqual(out['provenance']['model']['cache'], 'cold')
        self.assertNotEqual(out['cpu'], before_sys['cpu'])
        self.assertEqual(without_load_facts(out), without_load_facts(self.ok(self.session(), 'summary', sys_args)))

        # ntrace.pb cut mid-record: read again, partial
        cut(os.path.join(cap, 'ntrace.pb'), lambda n: n * 2 // 3 + 1)
        out = self.ok(s, 'summary', sys_args)
        self.assertEqual(out['provenance']['model']['cache'], 'cold')
        self.assertEqual(out['status'], 'partial')
        self.assertIs(out['partial'], True)
        self.assertIn('partial_reason', out)
        self.assertEqual(without_load_facts(out), without_load_facts(self.ok(self.session(), 'summary', sys_args)))

        # trace.json cut: read again, partial (the flag kept beside the status)
        cut(os.path.join(cap, 'trace.json'), lambda n: n // 2)
        out = self.ok(s, 'summary', fw_args)
        self.assertEqual(out['provenance']['model']['cache'], 'cold')
        self.assertEqual(out['status'], 'partial')
        self.assertIs(out['partial'], True)
        self.assertLess(out['events']['total'], before_fw['events']['total'])
        self.assertIn('partial_trace', [q.get('code') for q in out['data_quality']])
        self.assertEqual(without_load_facts(out), without_load_facts(self.ok(self.session(), 'summary', fw_args)))

    def test_host_device_names_its_device_time_and_agrees_on_thread_matches(self):
        out = self.ok(self.s, 'summary', {'path': self.root, 'profile': TRACE})
        hd = out['host_device']
        self.assertEqual(hd['status'], 'joined')
        ex = hd['executions']
        self.assertFalse(hd['execution_list_truncated'])
        self.assertEqual(len(hd['execution_list']), ex['nc_exec_running_spans'])
        self.assertEqual(sum(e['thread_matched'] for e in hd['execution_list']), ex['launch_thread_matched'])
        # the generator launches on each worker's execute thread, not the op's thread (bench/README.md)
        self.assertEqual(ex['launch_thread_matched'], 0)
        self.assertEqual(ex['by_correlation'], ex['nc_exec_running_spans'])
        for group in hd['ops'] + hd['steps'] + hd['compiled_regions']:
            self.assertNotIn('device_ns', group)
            self.assertNotIn('device_core_ns', group)
            self.assertLessEqual(group['device_union_ns'], group['device_core_sum_ns'])
        self.assertNotIn('device_ns', hd)
        self.assertLess(hd['device_union_ns'], hd['device_core_sum_ns'])  # two cores run at once
        # the trace's own device events, summed, are what the join sums per core
        top = {o['name']: o['device_ns'] for o in out['top_ops_by_device_time']}
        self.assertEqual({o['name']: o['device_core_sum_ns'] for o in hd['ops']}, top)

    def test_a_bare_array_trace_is_found_and_summarized(self):
        d = os.path.join(self.dir, 'torch1')
        os.makedirs(d)
        events = [{'ph': 'X', 'cat': 'cpu_op', 'name': 'aten::add', 'pid': 7, 'tid': 7, 'ts': 1000 + 10 * i,
                   'dur': 5} for i in range(4)]
        with open(os.path.join(d, 'worker0.pt.trace.json'), 'w') as f:
            json.dump(events, f)
        orient = self.ok(self.s, 'orient', {'path': d})
        self.assertEqual([(p['id'], p['kind']) for p in orient['profiles']], [('worker0.pt.trace.json', 'framework')])
        out = self.ok(self.s, 'summary', {'path': d})
        self.assertEqual(out['status'], 'complete')
        self.assertEqual(out['events']['total'], 4)
        self.assertEqual(out['provenance']['layout'], 'bare array of events')
        self.assertIn('bare_array', [q.get('code') for q in out['data_quality']])


if __name__ == '__main__':
    unittest.main()
