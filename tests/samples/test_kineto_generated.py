#!/usr/bin/python3
"""The Kineto reader and the framework summary on synthetic traces from bench/nl-gen-profile --kineto (the
format of the ingest benchmark, written like torch does: ": " and ", ", args full of arrays the model
ignores): kineto_dump must print exactly the aggregates of the independent Python reference
(ref_kineto.aggregate) for the trace as written, re-serialised compact and pretty-printed, and read in
7- and 4093-byte pieces; and the values nl-gen-profile's expected.json states (events, phases,
categories, steps, device busy time, device time per op, compiled regions, flow latency).

Usage: test_kineto_generated.py KINETO_DUMP NL_GEN_PROFILE   (meson suite `readers`; needs no samples)
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import ref_kineto  # noqa: E402

DUMP = GEN = None


def dump(path, *opts):
    return ref_kineto.run_json([DUMP] + list(opts) + [path])


class GeneratedTrace(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = cls.tmp.name
        subprocess.run([GEN, '--out', cls.out, '--seed', '7', '--layers', '2', '--cores', '1',
                        '--instructions-per-layer', '50', '--kineto-target-bytes', '3M', '--quiet'], check=True)
        cls.trace = os.path.join(cls.out, 'trace.json')
        with open(os.path.join(cls.out, 'expected.json')) as f:
            cls.expected = json.load(f)['ranks'][0]['kineto']
        cls.ref = ref_kineto.aggregate(cls.trace)
        cls.c = dump(cls.trace)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_same(self, got, want, what):
        problems = []
        ref_kineto.diff(got, want, what, problems)
        self.assertEqual(problems, [], '\n'.join(problems[:20]))

    def test_reader_and_summary_match_the_python_reference(self):
        self.assertGreater(self.c['events'], 5000)
        self.assert_same(self.c, self.ref, 'trace.json')

    def test_any_layout_and_read_size_gives_the_same_aggregates(self):
        with open(self.trace) as f:
            doc = json.load(f)
        for name, text in (('compact', json.dumps(doc, separators=(',', ':'))),
                           ('pretty', json.dumps(doc, indent=2))):
            path = os.path.join(self.out, name + '.json')
            with open(path, 'w') as f:
                f.write(text)
            self.assert_same(dump(path), self.c, name)
        self.assert_same(dump(self.trace, '--read-size', '4093'), self.c, '4093-byte reads')
        self.assert_same(dump(self.trace, '--read-size', '7'), self.c, '7-byte reads')

    def test_values_stated_by_the_generator(self):
        e, c = self.expected, self.c
        self.assertEqual(c['events'], e['events'])
        self.assertEqual(c['ph'], e['by_phase'])
        cats = dict(e['by_category'])
        cats[''] = e['events_without_category']
        self.assertEqual(c['cat'], cats)
        base = e['base_time_ns']
        self.assertEqual([[s[0], base + s[2], s[3], s[4]] for s in c['steps']],
                         [[s['name'], s['start_ns'], s['dur_ns'], s['device_busy_ns']] for s in e['steps']])
        self.assertEqual(c['device']['busy_ns'], e['device_busy_ns'])
        self.assertEqual(c['device']['spans'], e['device_events'])
        self.assertEqual({op[0]: op[3] for op in c['device']['ops']}, e['per_op_device_ns'])
        self.assertEqual(c['compiled_regions'], [e['compiled_regions'], e['compiled_region_ns']])
        self.assertEqual([c['latency']['min'], c['latency']['max']],
                         [e['flow_latency_ns']['min'], e['flow_latency_ns']['max']])


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit('usage: test_kineto_generated.py KINETO_DUMP NL_GEN_PROFILE')
    DUMP, GEN = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1] + sys.argv[3:])
