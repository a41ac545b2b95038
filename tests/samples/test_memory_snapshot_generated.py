#!/usr/bin/python3
"""The memory-snapshot reader and summary on synthetic snapshots (bench/nl-gen-profile --memory-snapshot),
standard library only.

Usage: test_memory_snapshot_generated.py DUMP_EXE GEN_EXE PICKLE_JSON_EXE REF_SCRIPT

For each configuration (both layouts, an OOM at the end, idle devices before the busy one, two seeds,
a few ranks in capture directories, one sized with --memory-target-bytes):
  - the generator writes the set twice: the snapshots must be byte-identical (determinism);
  - Python's pickle.load must read them, and PICKLE_JSON_EXE (the C pickle reader) must give the same object;
  - REF_SCRIPT --compare (tests/samples/ref_memory_snapshot.py) must find DUMP_EXE's summary equal to its own;
  - DUMP_EXE's numbers must equal the generator's ground truth in expected.json (segments, blocks, entries,
    reserved/allocated/requested bytes, the replayed start/peak/end and the peak row and time, OOMs).
Exit 0 when all hold, 1 otherwise.
"""
import filecmp
import json
import os
import pickle
import subprocess
import sys
import tempfile

CONFIGS = [
    ('current', []),
    ('v2_0', ['--memory-layout', 'v2_0']),
    ('oom', ['--memory-oom']),
    ('idle_devices', ['--memory-devices', '3', '--memory-oom']),
    ('v2_0_oom_2dev', ['--memory-layout', 'v2_0', '--memory-oom', '--memory-devices', '2']),
    ('seed7', ['--seed', '7']),
    ('ranks', ['--capture', '--ranks', '3']),
    ('sized', ['--memory-target-bytes', '3M']),
]
BASE = ['--memory-snapshot', '--cores', '1', '--layers', '1', '--instructions-per-layer', '100', '--quiet']


def enc(o):
    if isinstance(o, dict):
        return {'$dict': [[enc(k), enc(v)] for k, v in o.items()]}
    if isinstance(o, (list, tuple)):
        return [enc(x) for x in o]
    return o


def snapshots(out):
    exp = json.load(open(os.path.join(out, 'expected.json')))
    return [(os.path.join(out, r['memory_snapshot']['file']), r['memory_snapshot']) for r in exp['ranks']]


def check_one(path, truth, exes, name, fails):
    dump, _, pj, ref = exes
    data = open(path, 'rb').read()
    obj = pickle.loads(data)
    p = subprocess.run([pj, path], capture_output=True, text=True)
    if p.returncode != 0 or json.loads(p.stdout) != enc(obj):
        fails.append(f'{name}: the C pickle reader differs from pickle.load ({p.stderr.strip()[:200]})')
    p = subprocess.run([sys.executable, ref, '--compare', dump, path], capture_output=True, text=True)
    if p.returncode != 0:
        fails.append(f'{name}: reference comparison failed: {p.stdout.strip()[:400]}')
    p = subprocess.run([dump, path], capture_output=True, text=True)
    if p.returncode != 0:
        fails.append(f'{name}: {dump} failed: {p.stderr.strip()}')
        return
    got = json.loads(p.stdout)
    dev = got['devices'][-1]
    pk = dev['peak']
    have = {
        'layout': got['layout'], 'segments': got['segments'], 'blocks': got['blocks'],
        'trace_entries': got['trace_entries'], 'reserved': dev['total']['reserved'],
        'allocated': dev['total']['block_allocated'], 'requested': dev['total']['block_requested'],
        'start_bytes': pk['start'], 'peak_bytes': pk['bytes'], 'end_bytes': pk['end'], 'peak_row': pk['row'],
        'allocs': pk['allocs'], 'frees': pk['frees'], 'ooms': dev['oom_total'],
        'segment_allocs': dev['actions'].get('segment_alloc', 0), 'bytes': os.path.getsize(path),
    }
    for k, v in have.items():
        if truth.get(k) != v:
            fails.append(f'{name}: {k} = {v}, the generator says {truth.get(k)}')
    if truth.get('peak_time_us') != pk['time_us']:
        fails.append(f'{name}: peak time {pk["time_us"]}, the generator says {truth.get("peak_time_us")}')
    if len(got['devices']) != 1 or got['trace_devices'] < 1:
        fails.append(f'{name}: expected one busy device, got {len(got["devices"])}')
    print(f'ok {name}: {have["bytes"]} bytes, {have["trace_entries"]} entries, peak {have["peak_bytes"]} B at row '
          f'{have["peak_row"]}, {have["ooms"]} oom')


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    exes = sys.argv[1:]
    gen = exes[1]
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra in CONFIGS:
            a, b = os.path.join(tmp, name + '_a'), os.path.join(tmp, name + '_b')
            for out in (a, b):
                p = subprocess.run([gen, '--out', out] + BASE + extra, capture_output=True, text=True)
                if p.returncode != 0:
                    fails.append(f'{name}: generator failed: {p.stderr.strip()}')
                    break
            else:
                sa, sb = snapshots(a), snapshots(b)
                for (pa, truth), (pb, _) in zip(sa, sb):
                    if not filecmp.cmp(pa, pb, shallow=False):
                        fails.append(f'{name}: two runs wrote different bytes')
                    check_one(pa, truth, exes, f'{name}/{os.path.basename(pa)}', fails)
                if name == 'sized':
                    size = os.path.getsize(sa[0][0])
                    if not 0.9 * 3 * 2 ** 20 <= size <= 1.1 * 3 * 2 ** 20:
                        fails.append(f'sized: {size} bytes for a 3 MiB target')
                if name == 'ranks' and len({filecmp.cmp(sa[0][0], p, shallow=False) for p, _ in sa[1:]} - {False}):
                    fails.append('ranks: two ranks wrote the same snapshot')
    for f in fails:
        print('FAIL', f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
