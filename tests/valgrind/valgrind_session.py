"""An end-to-end session under valgrind memcheck: zero errors and zero definite leaks (Python stdlib only).

Usage: valgrind_session.py   (env: NEURONLENS = the binary, NL_SAMPLES_DIR = the real samples; optional
NL_VALGRIND_LOG_DIR keeps the valgrind logs there instead of a temporary directory)

What runs under memcheck (--error-exitcode, --errors-for-leak-kinds=definite, --leak-check=full):
  1. `neuronlens demo DIR` with --trace-children=yes: the demo profile is generated, and the demo's own
     server child walks through an assistant's first calls;
  2. one `neuronlens serve --conformance-fixtures --workers 2` session: initialize; tools/list; every
     resource read and every prompt got; a cancelled fixture call (test_sleep, which must never answer) and a
     cancelled real call (summary of the largest Kineto trace, cold: cancelled while it reads, or answered
     if it was faster); then, for the demo profile and every folder and file of the real samples, orient and
     every analysis tool (summary, trace-extract with the kind that fits the profile, kernel-attribution,
     collective-gaps) once without a profile id and once per profile orient lists (at most
     PROFILES_PER_PATH); a call with an id still in flight; shutdown by closing stdin.
Every reply must be one JSON-RPC response with a result (tool failures are isError results, never protocol
errors). Pass: every process exits 0 and every valgrind log reports 0 errors and 0 bytes definitely lost.
Exit 0 pass, 1 fail, 77 skip (no valgrind, or the binary is built with a sanitizer). Without the samples the
demo profile is still analysed and the samples part is skipped with a printed reason.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'e2e'))
import mcp_session  # noqa: E402

PROFILES_PER_PATH = 3
CALL_TIMEOUT = 240.0  # seconds for one call under valgrind on a loaded machine
TOOLS = ('summary', 'trace-extract', 'kernel-attribution', 'collective-gaps')
KIND_FOR_PROFILE = {'device': 'instruction', 'system': 'system', 'framework': 'framework'}


def valgrind_argv(valgrind, log_pattern, children=False):
    argv = [valgrind, '--tool=memcheck', '--error-exitcode=99', '--leak-check=full',
            '--show-leak-kinds=definite', '--errors-for-leak-kinds=definite', '--num-callers=40',
            '--log-file=' + log_pattern]
    if children:
        argv.append('--trace-children=yes')
    return argv


def check_logs(log_dir, prefix):
    """Problems found in the valgrind logs named prefix*; [] when every one is clean."""
    problems = []
    logs = sorted(f for f in os.listdir(log_dir) if f.startswith(prefix))
    if not logs:
        return ['no valgrind log %s* in %s' % (prefix, log_dir)]
    for name in logs:
        text = open(os.path.join(log_dir, name), errors='replace').read()
        errors = re.findall(r'ERROR SUMMARY: (\d+) errors', text)
        definite = re.findall(r'definitely lost: ([\d,]+) bytes', text)
        if not errors:
            problems.append('%s: no ERROR SUMMARY (did the process die?):\n%s' % (name, text[-3000:]))
        elif int(errors[-1]) or (definite and definite[-1] != '0'):
            problems.append('%s: %s errors, %s bytes definitely lost:\n%s' % (
                name, errors[-1], definite[-1] if definite else '0', text[-20000:]))
    return problems


def sample_paths(samples):
    """Every folder and file of the samples (their README and license files excepted), folders first."""
    paths = []
    for d, dirs, files in os.walk(samples):
        dirs.sort()
        if d != samples:
            paths.append(d)
        paths += [os.path.join(d, f) for f in sorted(files)
                  if not f.endswith('.md') and not f.startswith('LICENSE')]
    return paths


class Checker:
    def __init__(self, session):
        self.s = session
        self.calls = 0
        self.failures = []
        self.late_ok = set()  # ids of cancelled calls whose response may still arrive
        self.tool_errors = 0  # isError results (a tool that does not apply to a path says so)

    def stray(self, notes):
        for m in notes:
            if 'method' not in m and m.get('id') not in self.late_ok:
                self.failures.append('an unexpected response: %s' % json.dumps(m)[:500])

    def call(self, method, params=None):
        self.calls += 1
        notes = []
        r = self.s.response(self.s.request(method, params), timeout=CALL_TIMEOUT, notes=notes)
        self.stray(notes)
        if 'result' not in r:
            self.failures.append('%s %s: %s' % (method, json.dumps(params)[:200], json.dumps(r)[:500]))
        return r.get('result', {})

    def tool(self, name, args):
        res = self.call('tools/call', {'name': name, 'arguments': args})
        self.tool_errors += bool(res.get('isError'))
        return res.get('structuredContent') if not res.get('isError') else None


def lists_and_references(c):
    c.call('tools/list')
    for r in c.call('resources/list').get('resources', []):
        c.call('resources/read', {'uri': r['uri']})
    c.call('resources/templates/list')
    for p in c.call('prompts/list').get('prompts', []):
        args = {a['name']: 'x' for a in p.get('arguments', [])}
        c.call('prompts/get', {'name': p['name'], 'arguments': args})
    c.call('logging/setLevel', {'level': 'warning'})


def cancellations(c, s, samples):
    """A fixture call that must never answer and a real one that may, both cancelled; the server still answers
    and refuses a call whose id is in flight."""
    sleep_id = s.request('tools/call', {'name': 'test_sleep', 'arguments': {'ms': 60000}})
    s.notify('notifications/cancelled', {'requestId': sleep_id, 'reason': 'valgrind session'})
    if samples:
        traces = [p for p in sample_paths(samples) if p.endswith('.json.gz')]
        if traces:
            biggest = max(traces, key=os.path.getsize)
            real_id = s.request('tools/call', {'name': 'summary', 'arguments': {'path': biggest}})
            s.notify('notifications/cancelled', {'requestId': real_id})
            c.late_ok.add(real_id)
    c.call('ping')
    dup = s.request('tools/call', {'name': 'test_sleep', 'arguments': {'ms': 60000}})
    s.request('tools/call', {'name': 'test_sleep', 'arguments': {'ms': 1}}, id=dup)
    notes = []
    refused = s.response(dup, timeout=CALL_TIMEOUT, notes=notes)
    c.stray(notes)
    if refused.get('error', {}).get('code') != -32600:
        c.failures.append('a call with an id in flight was not refused: %r' % refused)
    s.notify('notifications/cancelled', {'requestId': dup})


def analyse(c, path):
    orient = c.tool('orient', {'path': path}) or {}
    profiles = orient.get('profiles', [])[:PROFILES_PER_PATH]
    for name in TOOLS:
        c.tool(name, {'path': path})
    for p in profiles:
        for name in TOOLS:
            args = {'path': path, 'profile': p['id']}
            if name == 'trace-extract':
                args['kind'] = KIND_FOR_PROFILE.get(p.get('kind'), 'instruction')
            c.tool(name, args)
        if p.get('kind') == 'device':
            c.tool('trace-extract', {'path': path, 'profile': p['id'], 'kind': 'dma'})
    return len(profiles)


def main():
    binary = os.path.abspath(os.environ.get('NEURONLENS', 'build/neuronlens'))
    valgrind = shutil.which('valgrind')
    if not valgrind:
        print('SKIP: valgrind is not installed (apt-get install valgrind)')
        return 77
    if b'__asan_init' in open(binary, 'rb').read() or b'__tsan_init' in open(binary, 'rb').read():
        print('SKIP: %s is built with a sanitizer; memcheck needs the plain build' % binary)
        return 77
    samples = os.environ.get('NL_SAMPLES_DIR', '')
    if not os.path.isdir(samples):
        print('samples: SKIPPED, no samples at %r (NL_SAMPLES_DIR): only the demo profile is analysed' % samples)
        samples = None
    tmp = tempfile.mkdtemp(prefix='nl-valgrind-')
    log_dir = os.environ.get('NL_VALGRIND_LOG_DIR') or tmp
    os.makedirs(log_dir, exist_ok=True)
    t0 = time.monotonic()
    failures = []
    try:
        demo_dir = os.path.join(tmp, 'demo')
        r = subprocess.run(valgrind_argv(valgrind, os.path.join(log_dir, 'vg-demo.%p.log'), children=True) +
                           [binary, 'demo', demo_dir], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
        if r.returncode != 0:
            failures.append('neuronlens demo exited %d: %s' % (r.returncode, r.stderr.decode()[-2000:]))
        failures += check_logs(log_dir, 'vg-demo.')
        print('demo under valgrind: %.0f s' % (time.monotonic() - t0), flush=True)

        paths = [demo_dir] + [os.path.join(demo_dir, f) for f in sorted(os.listdir(demo_dir))
                              if f != 'expected.json']
        if samples:
            paths += sample_paths(samples)
        prefix = valgrind_argv(valgrind, os.path.join(log_dir, 'vg-serve.%p.log'))
        with mcp_session.Session('--conformance-fixtures', '--workers', '2', binary=binary, prefix=prefix) as s:
            c = Checker(s)
            init = s.call('initialize', {'protocolVersion': mcp_session.PROTOCOL, 'capabilities': {},
                                         'clientInfo': {'name': 'valgrind', 'version': '1'}}, timeout=CALL_TIMEOUT)
            if 'result' not in init:
                failures.append('initialize: %r' % init)
            s.notify('notifications/initialized')
            lists_and_references(c)
            cancellations(c, s, samples)
            profiles = 0
            for p in paths:
                profiles += analyse(c, p)
            print('serve under valgrind: %d paths, %d profiles, %d calls (%d isError tool results), %.0f s' % (
                len(paths), profiles, c.calls, c.tool_errors, time.monotonic() - t0), flush=True)
            failures += c.failures
            s.close_stdin()
            rc = s.wait(timeout=CALL_TIMEOUT)
            if rc != 0:
                failures.append('serve exited %d (99 = valgrind errors); stderr: %s' % (rc, s.stderr[-2000:]))
        failures += check_logs(log_dir, 'vg-serve.')
    finally:
        if log_dir == tmp and not failures:
            shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print('FAIL: ' + f)
    if failures:
        print('valgrind logs kept in %s' % log_dir)
        return 1
    print('valgrind session clean: 0 errors, 0 bytes definitely lost (%.0f s)' % (time.monotonic() - t0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
