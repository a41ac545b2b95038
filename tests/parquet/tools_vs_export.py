#!/usr/bin/python3
"""tools_vs_export.py EXPORT.json PROFILE_DIR... — the tools answer on a neuron-explorer Parquet directory as on
the JSON export it was written from (issue 13.3: "the same outputs as on the JSON export of the same data").

make_fixtures.mjs writes each directory with DuckDB from the export; this runs `neuronlens call` on the export
and on each directory for summary, kernel-attribution (every group_by) and trace-extract (instruction, dma and
semaphore pages, and the second page through next_cursor), and requires the structured results to be equal
except for what differs by construction, listed in EXPECTED_DIFFERENCES with the reason. Numbers the fixture
stores as FLOAT (float32, as neuron-explorer does for *_time, *_percent and a few ratios) are compared to 7
significant digits. Stdlib only; exit 1 with every difference printed.
"""
import json
import os
import subprocess
import sys

NEURONLENS = os.environ.get('NEURONLENS', 'neuronlens')

# Paths (dotted, [] for any index) whose values differ by construction, and why.
EXPECTED_DIFFERENCES = {
    'profile': 'names the file or directory read',
    'provenance': 'names the files read, their versions and load times',
    'next_cursor': 'a cursor fingerprints the profile it pages',
    'data_quality': "the export is checked for its NTFF; the Parquet fixture carries a made-up Warning table",
    'engines[].model_info_instruction_count': 'model_info has no table in the Parquet schema (formats.md §7.2)',
    'findings[throttling].evidence/value': 'the export summary has throttle keys, one of them the total active time '
                                     'per core (throttle_active_nc<N>_time_ns); Parquet keeps throttling per type '
                                     'in ThrottleSummary, so the keys counted and the largest one differ',
}


def call(tool, args):
    p = subprocess.run([NEURONLENS, 'call', tool, json.dumps(args)], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit('%s %s failed (%d): %s %s' % (tool, args, p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return json.loads(p.stdout)


def close(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b:
            return True
        return abs(a - b) <= 1e-6 * max(abs(a), abs(b))  # float32 keeps ~7 significant digits
    return a == b


def expected(path, x, y):
    generic = path.replace('[', '.[').split('.')
    key = '.'.join(p for p in generic if p)
    for skip in ('profile', 'provenance', 'next_cursor', 'data_quality'):
        if key == skip or key.startswith(skip + '.'):
            return True
    if key.startswith('engines.[') and key.endswith('model_info_instruction_count'):
        return True
    return False


def throttling_finding(f):
    return isinstance(f, dict) and 'throttl' in (f.get('rule', '') + f.get('id', '') + f.get('title', '')).lower()


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = path + ('.' if path else '') + k
            if k not in a or k not in b:
                if not expected(p, a.get(k), b.get(k)):
                    out.append('%s: only in %s' % (p, 'export' if k in a else 'parquet'))
                continue
            diff(a[k], b[k], p, out)
    elif isinstance(a, list) and isinstance(b, list):
        if path == 'findings':  # the throttling finding is compared but for its evidence and largest value
            a = [dict(f, evidence=None, value=None) if throttling_finding(f) else f for f in a]
            b = [dict(f, evidence=None, value=None) if throttling_finding(f) else f for f in b]
        if len(a) != len(b):
            if not expected(path, a, b):
                out.append('%s: %d items in the export, %d in parquet' % (path, len(a), len(b)))
            return
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, '%s[%d]' % (path, i), out)
    elif not close(a, b) and not expected(path, a, b):
        out.append('%s: export %r, parquet %r' % (path, a, b))


def compare(label, a, b, problems):
    out = []
    diff(a, b, '', out)
    problems.extend('%s: %s' % (label, d) for d in out)


def calls():
    yield 'summary', {}
    for g in ('source', 'layer', 'opcode', 'hlo', 'engine'):
        yield 'kernel-attribution', {'group_by': g}
    for kind in ('instruction', 'dma', 'semaphore'):
        yield 'trace-extract', {'kind': kind, 'max_rows': 25}
    yield 'trace-extract', {'kind': 'instruction', 'sort': 'wait', 'max_rows': 10}


def main():
    export, dirs = sys.argv[1], sys.argv[2:]
    problems = []
    compared = 0
    for tool, extra in calls():
        a = call(tool, dict(extra, path=export))
        for d in dirs:
            b = call(tool, dict(extra, path=d))
            label = '%s %s on %s' % (tool, json.dumps(extra), os.path.basename(d))
            compare(label, a, b, problems)
            compared += 1
            if tool == 'trace-extract' and a.get('next_cursor') and b.get('next_cursor'):
                a2 = call(tool, dict(extra, path=export, cursor=a['next_cursor']))
                b2 = call(tool, dict(extra, path=d, cursor=b['next_cursor']))
                compare(label + ' page 2', a2, b2, problems)
                compared += 1
        if tool == 'summary' and not a.get('findings'):
            problems.append('summary of the export has no findings: the comparison would prove little')
    # One table given as the path stands for its directory: same profile id, same answer.
    for d in dirs:
        whole = call('summary', {'path': d})
        names = sorted(os.listdir(d))  # a split table is Instruction_0.parquet, ...
        for table in [n for n in names if n.startswith('Instruction')][:1] + ['Summary.parquet']:
            one = call('summary', {'path': os.path.join(d, table)})
            if one['profile'] != whole['profile']:
                problems.append('summary on %s/%s names profile %s, the directory %s'
                                % (os.path.basename(d), table, one['profile'], whole['profile']))
            strip = lambda r: {k: v for k, v in r.items() if k != 'provenance'}  # noqa: E731 (names the root)
            if strip(one) != strip(whole):
                problems.append('summary on %s/%s differs from the directory\'s' % (os.path.basename(d), table))
            compared += 1
    for p in problems:
        print(p)
    print('tools_vs_export: %d results compared, %d differences beyond the expected ones (%s)'
          % (compared, len(problems), '; '.join(sorted(EXPECTED_DIFFERENCES))))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
