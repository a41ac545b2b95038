#!/usr/bin/env python3
"""PyTorch memory-snapshot benchmark (issue 16): the C reader against Python's pickle.load. Stdlib only; a
benchmark, not a test. Prints a Markdown table for bench/RESULTS.md ("Memory snapshots").

    bench/bench_memsnap.py [--build build] [--work /tmp/nl-memsnap] [--size 1G] [--runs 3] [--keep]

Cases, each run once as a warm-up (page cache filled) and then --runs times; the table gives the median
wall time, the median CPU time (user + system: the machine may be shared, and wall time then includes
waiting for a CPU) and the median peak RSS (ru_maxrss from wait4(2) on each child, the process's own
high-water mark):
  - the largest real snapshot in $NL_SAMPLES_DIR/memory-snapshot (skipped, and said so, when absent);
  - a synthetic snapshot of --size bytes, current layout (bench/nl-gen-profile --memory-target-bytes),
    written into --work and deleted afterwards unless --keep;
for each: tests/samples/memory_snapshot_dump --read-only (read into the model), memory_snapshot_dump (read +
memory_summary) and /usr/bin/python3 -c 'import pickle; pickle.load(open(f, "rb"))'.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = '/usr/bin/python3' if os.path.exists('/usr/bin/python3') else sys.executable


def parse_size(s):
    mult = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
    return int(float(s[:-1]) * mult[s[-1].upper()]) if s[-1].upper() in mult else int(s)


def run_once(argv):
    """(wall s, cpu s, peak RSS bytes, stdout) of one child."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        raise RuntimeError(f'{argv[0]} failed ({status}): {err.decode(errors="replace")[:300]}')
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024, out


def measure(argv, runs):
    run_once(argv)  # warm-up
    rs = [run_once(argv) for _ in range(runs)]
    return (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs),
            statistics.median(r[2] for r in rs))


def fmt_s(s):
    return f'{s * 1000:.1f} ms' if s < 1 else f'{s:.2f} s'


def fmt_mb(b):
    return f'{b / 1e6:.0f} MB'


def bench_file(label, path, build, runs, rows):
    size = os.path.getsize(path)
    dump = os.path.join(build, 'tests', 'samples', 'memory_snapshot_dump')
    cases = [
        ('C reader (model only)', [dump, '--read-only', path]),
        ('C reader + memory_summary', [dump, path]),
        ('python3 pickle.load', [PY, '-c', 'import pickle,sys; pickle.load(open(sys.argv[1], "rb"))', path]),
    ]
    res = {}
    for name, argv in cases:
        res[name] = measure(argv, runs)
        wall, cpu, rss = res[name]
        print(f'  {label}: {name}: wall {fmt_s(wall)}, cpu {fmt_s(cpu)}, peak RSS {fmt_mb(rss)}', file=sys.stderr)
    py = res['python3 pickle.load']
    for name, (wall, cpu, rss) in res.items():
        ratio = '' if name.startswith('python') else f'{py[1] / cpu:.1f}× less CPU, {py[2] / rss:.0f}× less memory'
        rate = f'{size / cpu / 1e6:.0f} MB/s' if cpu > 0 else ''
        rows.append(f'| {label} ({size / 1e6:.1f} MB) | {name} | {fmt_s(wall)} | {fmt_s(cpu)} | {rate} | '
                    f'{fmt_mb(rss)} | {ratio} |')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--work', default='/tmp/nl-memsnap')
    ap.add_argument('--size', default='1G')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--keep', action='store_true')
    a = ap.parse_args()
    rows = ['| input | reader | wall | CPU (user+sys) | CPU rate | peak RSS | vs Python |',
            '|---|---|---|---|---|---|---|']
    samples = os.path.join(os.environ.get('NL_SAMPLES_DIR', os.path.join(ROOT, '..', 'shared', 'samples')),
                           'memory-snapshot')
    if os.path.isdir(samples):
        files = [os.path.join(samples, f) for f in os.listdir(samples) if f.endswith('.pickle')]
        largest = max(files, key=os.path.getsize)
        bench_file(f'real: {os.path.basename(largest)}', largest, a.build, a.runs, rows)
    else:
        print(f'note: {samples} is absent; no real snapshot measured', file=sys.stderr)
    gen = os.path.join(a.build, 'bench', 'nl-gen-profile')
    out = os.path.join(a.work, 'gen')
    t0 = time.monotonic()
    subprocess.run([gen, '--out', out, '--quiet', '--memory-target-bytes', a.size, '--cores', '1', '--layers', '1',
                    '--instructions-per-layer', '100'], check=True)
    path = os.path.join(out, 'memory_snapshot_rank0.pickle')
    print(f'  generated {path} ({os.path.getsize(path)} bytes) in {time.monotonic() - t0:.1f} s', file=sys.stderr)
    try:
        bench_file('synthetic, current layout', path, a.build, a.runs, rows)
    finally:
        if not a.keep:
            os.unlink(path)
    print('\n'.join(rows))
    return 0


if __name__ == '__main__':
    sys.exit(main())
