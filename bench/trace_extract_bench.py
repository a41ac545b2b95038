#!/usr/bin/env python3
"""trace-extract benchmark: warm pages of every kind through one server, and cold calls, for one binary or
two side by side (A/B). Stdlib only; a benchmark, not a test.

    bench/trace_extract_bench.py [--build build] [--binary NAME=PATH ...] [--work /tmp/nl-bench] [--rounds 21]
                                 [--cold-runs 5]

Inputs (nl-gen-profile, kept in --work between runs like run_bench.py's): the 1M-instruction export of
run_bench.py's warm_cases, and one capture directory (--capture --executions 1000 --kineto-target-bytes 400M:
~12k system spans, a 420 MB trace.json of ~1.4M events).

Warm: one server per binary; each case's first call (model load, memoized order built) is not counted; then
`--rounds` rounds, each calling every case once on every server, the servers' order alternating from round
to round, so a machine shared with other work slows both binaries alike. Reported per case and binary: the
median wall time of a call, and the median CPU time the server spent on it (all its threads, /proc
schedstat), which other work on the machine disturbs far less. Cold: `neuronlens call trace-extract` (new process: model read, order built, one page), the
binaries alternating, median of --cold-runs after one unmeasured run each.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run_bench import Server, needs_generating  # noqa: E402


def inputs(gen, work):
    export_dir = os.path.join(work, 'export-1M')
    export = os.path.join(export_dir, 'profile_nc0.json')
    if needs_generating(export, gen):
        subprocess.run([gen, '--out', export_dir, '--cores', '1', '--layers', '8', '--instructions-per-layer', '125000',
                        '--quiet'], check=True)
    cap = os.path.join(work, 'capture-te')
    marker = os.path.join(cap, 'expected.json')
    if needs_generating(marker, gen):
        subprocess.run([gen, '--out', cap, '--capture', '--cores', '1', '--executions', '1000',
                        '--kineto-target-bytes', '400M', '--quiet'], check=True)
    return export, cap


def warm_cases(export, cap):
    sysp = {'path': cap, 'profile': 'rank0/system', 'kind': 'system'}
    fw = {'path': cap, 'kind': 'framework'}
    dev = {'path': export}
    return [
        ('instruction by duration (run_bench warm case)', dict(dev, kind='instruction', sort='duration')),
        ('instruction by time', dict(dev, kind='instruction')),
        ('instruction by time, page 2 (cursor)', dict(dev, kind='instruction', _page=2)),
        ('instruction engine tensor + opcode MAT*, by duration', dict(dev, engine='tensor', opcode='MAT*', sort='duration')),
        ('instruction 20 µs window, by duration (139 rows: sparse)', dict(dev, start_ns=8000000, end_ns=8020000, sort='duration')),
        ('instruction window matching nothing (explained)', dict(dev, start_ns=1000000, end_ns=1020000, sort='duration')),
        ('instruction min_wait_ns 1, by wait', dict(dev, min_wait_ns=1, sort='wait')),
        ('dma by bytes', dict(dev, kind='dma', sort='bytes')),
        ('dma queue filter, by duration', dict(dev, kind='dma', engine='qSyncIO0', sort='duration')),
        ('semaphore by time', dict(dev, kind='semaphore')),
        ('system by duration', dict(sysp, sort='duration')),
        ('system engine host, by time', dict(sysp, engine='host')),
        ('framework by time', fw),
        ('framework by duration', dict(fw, sort='duration')),
        ('framework engine host + opcode aten::*, by duration', dict(fw, engine='host', opcode='aten::*', sort='duration')),
    ]


def cpu_ns(server):
    """CPU time the server's threads have used, ns (/proc/<pid>/task/*/schedstat: time on a CPU)."""
    total = 0
    task_dir = '/proc/%d/task' % server.p.pid
    for tid in os.listdir(task_dir):
        try:
            with open(os.path.join(task_dir, tid, 'schedstat')) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def call_args(server, args):
    """The arguments of a case; `_page: 2` takes the first page's next_cursor (per server)."""
    a = {k: v for k, v in args.items() if not k.startswith('_')}
    if args.get('_page') == 2:
        r, _ = server.call('tools/call', {'name': 'trace-extract', 'arguments': a})
        a['cursor'] = r['result']['structuredContent']['next_cursor']
    return a


def run_warm(binaries, cases, rounds):
    servers = {name: Server(path) for name, path in binaries}
    prepared = {}
    for name, _ in binaries:
        for label, args in cases:
            a = call_args(servers[name], args)
            r, _ = servers[name].call('tools/call', {'name': 'trace-extract', 'arguments': a})
            if r.get('result', {}).get('isError'):
                raise SystemExit('%s: %s: %s' % (name, label, r['result']['content'][0]['text']))
            prepared[(name, label)] = a
    times = {(name, label): [] for name, _ in binaries for label, _ in cases}
    cpu = {(name, label): [] for name, _ in binaries for label, _ in cases}
    sizes = {}
    for k in range(rounds):
        order = binaries if k % 2 == 0 else list(reversed(binaries))
        for label, _ in cases:
            for name, _ in order:
                c0, t0 = cpu_ns(servers[name]), time.perf_counter()
                _, size = servers[name].call('tools/call', {'name': 'trace-extract', 'arguments': prepared[(name, label)]})
                times[(name, label)].append(time.perf_counter() - t0)
                cpu[(name, label)].append((cpu_ns(servers[name]) - c0) / 1e9)
                sizes[(name, label)] = size
    for s in servers.values():
        s.close()
    return ({key: statistics.median(v) for key, v in times.items()}, {key: statistics.median(v) for key, v in cpu.items()},
            sizes)


def run_cold(binaries, cases, runs):
    out = {}
    for label, args in cases:
        walls = {name: [] for name, _ in binaries}
        for k in range(runs + 1):
            order = binaries if k % 2 == 0 else list(reversed(binaries))
            for name, path in order:
                t0 = time.perf_counter()
                r = subprocess.run([path, 'call', 'trace-extract', json.dumps(args)], capture_output=True)
                wall = time.perf_counter() - t0
                if r.returncode != 0:
                    raise SystemExit('%s: %s: %s' % (name, label, r.stderr.decode(errors='replace')[:200]))
                if k:
                    walls[name].append(wall)
        for name, _ in binaries:
            out[(name, label)] = statistics.median(walls[name])
    return out


def fmt(s):
    return '%.3f s' % s if s >= 0.1 else '%.2f ms' % (s * 1e3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--binary', action='append', default=[], help='NAME=PATH; repeat for an A/B run')
    ap.add_argument('--work', default='/tmp/nl-bench')
    ap.add_argument('--rounds', type=int, default=21)
    ap.add_argument('--cold-runs', type=int, default=5)
    ap.add_argument('--no-cold', action='store_true')
    args = ap.parse_args()
    gen = os.path.join(args.build, 'bench', 'nl-gen-profile')
    binaries = [tuple(b.split('=', 1)) for b in args.binary] or [('build', os.path.join(args.build, 'neuronlens'))]
    os.makedirs(args.work, exist_ok=True)
    export, cap = inputs(gen, args.work)
    cases = warm_cases(export, cap)
    warm, cpu, sizes = run_warm(binaries, cases, args.rounds)
    if args.no_cold:
        cold_cases = []
    else:
        cold_cases = [('instruction by duration, cold (1M-instruction export)', {'path': export, 'sort': 'duration'}),
                      ('framework by duration, cold (420 MB trace.json)', {'path': cap, 'kind': 'framework', 'sort': 'duration'})]
    cold = run_cold(binaries, cold_cases, args.cold_runs)
    names = [n for n, _ in binaries]
    print('| case | ' + ' | '.join('%s wall | %s CPU' % (n, n) for n in names) + ' | response |')
    print('|---|' + '---|---|' * len(names) + '---|')
    for label, _ in cases:
        print('| %s | %s | %d B |' % (label, ' | '.join('%s | %s' % (fmt(warm[(n, label)]), fmt(cpu[(n, label)]))
                                                          for n in names), sizes[(names[0], label)]))
    for label, _ in cold_cases:
        print('| %s | %s | |' % (label, ' | '.join('%s | ' % fmt(cold[(n, label)]) for n in names)))


if __name__ == '__main__':
    main()
