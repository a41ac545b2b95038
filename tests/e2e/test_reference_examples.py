"""Every `neuronlens call TOOL '{...}'` example in references/*.md runs against the demo profile
(STYLE.md §23): the documented calls must stay valid for the tools' schemas and answer with numbers.

The example's "/data/run1" path is replaced by a freshly written demo profile (`neuronlens demo DIR`
writes it); profile-specific arguments keep their values. A call must exit 0 (a result); exit 2 (usage)
or an argument error means the reference has drifted from the tool.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

BINARY = os.environ.get('NEURONLENS', 'build/neuronlens')
ROOT = os.environ.get('NL_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
EXAMPLE = re.compile(r"neuronlens call ([a-z-]+) '(\{.*?\})'")


def examples():
    for path in sorted(glob.glob(os.path.join(ROOT, 'references', '*.md'))):
        with open(path, encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                for m in EXAMPLE.finditer(line):
                    yield os.path.basename(path), n, m.group(1), json.loads(m.group(2))


class ReferenceExamples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='nl-ref-examples-')
        cls.demo = os.path.join(cls.tmp, 'demo')
        r = subprocess.run([BINARY, 'demo', cls.demo], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def demo_cc_core(self):
        r = subprocess.run([BINARY, 'call', 'collective-gaps', json.dumps({'path': self.demo})], capture_output=True,
                           text=True, timeout=120)
        return json.loads(r.stdout)['cc_core']

    def test_there_are_examples(self):
        self.assertGreaterEqual(len(list(examples())), 4)

    def test_every_example_runs_on_the_demo_profile(self):
        for name, line, tool, args in examples():
            with self.subTest(example='%s:%d' % (name, line)):
                args['path'] = self.demo
                if tool in ('summary', 'kernel-attribution', 'trace-extract'):
                    args.setdefault('profile', 'profile_nc0')
                if 'cc_core' in args:  # a hardware-specific core number: use the one the demo dump has
                    args['cc_core'] = self.demo_cc_core()
                r = subprocess.run([BINARY, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=120)
                self.assertEqual(r.returncode, 0, '%s:%d %s %s -> %s' % (name, line, tool, args, r.stdout[-400:] + r.stderr[-400:]))
                out = json.loads(r.stdout)
                self.assertIn('data_quality', out)


if __name__ == '__main__':
    unittest.main(verbosity=2)
