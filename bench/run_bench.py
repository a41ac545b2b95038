#!/usr/bin/env python3
"""neuronlens benchmark harness: writes bench/RESULTS.md (issue 6). Stdlib only; a benchmark, not a test.

    bench/run_bench.py [--build build] [--work /tmp/nl-bench] [--runs 5] [--sizes 1G,4G] [--quick]

Every case runs once as a warm-up (page cache filled, binaries loaded) and then --runs times; the table
reports the median wall time and the median peak RSS of those runs, and the ratio against the baseline
measured in the same run. Peak RSS comes from wait4(2) on each child (ru_maxrss), so it is the process's
own high-water mark, not a sampled value.

Cases
- full JSON export (synthetic, nl-gen-profile, one core) at each size: `neuronlens call summary` and
  `neuronlens call kernel-attribution` cold (new process, model not cached) versus /usr/bin/python3 doing
  json.load + the same aggregation (per-engine counts, summed durations, merged busy time; DMA totals),
  with the garbage collector on and off; and `call summary` again pinned to one CPU (the per-core number:
  the reader uses every CPU the process may run on). Python runs under an address-space limit so that a
  size it cannot hold fails with MemoryError instead of taking the machine down; that is reported as such.
- Kineto trace.json (~1 GB, nl-gen-profile --kineto): `neuronlens call summary` versus python json.load +
  per-category counts, summed duration per CPU op (top 20) and merged device busy time.
- warm calls: one server over stdio, a 1M-instruction export loaded once, then each tool 20 times.
- server start-up and tools/list latency (bench/startup.py's method, 100 runs).
- multi-rank: 1, 8 and 32 rank directories (capture layout, one export each): orient, and summary of every
  rank through one server, showing how time and memory grow with the rank count.
A case whose tool is not implemented in this build is reported as such, never timed.
"""
import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = '/usr/bin/python3' if os.path.exists('/usr/bin/python3') else sys.executable
PY_MEMORY_LIMIT = 22 << 30  # the machine has 23.5 GiB and no swap: json.load of the 4 GB export needs ~19-20 GiB

PY_AGGREGATE = r'''
import gc, json, sys
if sys.argv[2] == "off":
    gc.disable()
def union(iv):
    iv.sort(); total = 0; cs = ce = None
    for s, e in iv:
        if e <= s: continue
        if cs is not None and s <= ce:
            if e > ce: ce = e
            continue
        if cs is not None: total += ce - cs
        cs, ce = s, e
    return total + (ce - cs if cs is not None else 0)
with open(sys.argv[1]) as f:
    d = json.load(f)
eng = {}
for i in d["instruction"]:
    e = eng.setdefault(i["subgroup"].lower(), [0, 0, []])
    e[0] += 1; e[1] += i["duration"]
    if i["opcode"] != "EVENT_SEMAPHORE":
        e[2].append((i["timestamp"], i["timestamp"] + i["duration"]))
out = {k: [v[0], v[1], union(v[2])] for k, v in eng.items()}
packets = [x for x in d["dma"] if x.get("aggregated") != "yes"]
out["dma"] = [len(packets), sum(x["transfer_size"] for x in packets)]
print(json.dumps(out))
'''

PY_KINETO = r'''
import gc, gzip, json, sys
if sys.argv[2] == "off":
    gc.disable()
op = gzip.open if sys.argv[1].endswith(".gz") else open
with op(sys.argv[1], "rt") as f:
    d = json.load(f)
cats = {}; ops = {}; dev = []
for e in d["traceEvents"]:
    c = e.get("cat", "")
    cats[c] = cats.get(c, 0) + 1
    if e.get("ph") != "X":
        continue
    if c == "cpu_op":
        ops[e["name"]] = ops.get(e["name"], 0) + e.get("dur", 0)
    elif c in ("kernel", "gpu_memcpy", "gpu_memset") or c.startswith("privateuse1_driver"):
        dev.append((e["ts"], e["ts"] + e.get("dur", 0)))
dev.sort(); busy = 0; cs = ce = None
for s, e in dev:
    if cs is not None and s <= ce:
        ce = max(ce, e); continue
    if cs is not None: busy += ce - cs
    cs, ce = s, e
if cs is not None: busy += ce - cs
top = sorted(ops.items(), key=lambda kv: -kv[1])[:20]
print(json.dumps({"cats": cats, "busy_us": busy, "top": top}))
'''


def one_cpu():
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (PY_MEMORY_LIMIT, PY_MEMORY_LIMIT))


def run_rusage(argv, preexec=None, timeout=3600):
    """Like run_measured but with the child's own peak RSS via wait4."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=preexec)
    out_chunks = []
    while True:
        chunk = p.stdout.read(1 << 16)
        if not chunk:
            break
        out_chunks.append(chunk)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return {'wall': wall, 'rss': ru.ru_maxrss * 1024, 'rc': p.returncode, 'out': b''.join(out_chunks), 'err': err}


def median_runs(argv, runs, preexec=None, check=None, warmup=True):
    """Median wall and peak RSS of `runs` runs (after one warm-up run when `warmup`). A failing run ends
    the case at once (a baseline that runs out of memory fails the same way every time)."""
    results = []
    for i in range(runs + (1 if warmup else 0)):
        r = run_rusage(argv, preexec)
        if r['rc'] != 0:
            tail = r['err'].decode(errors='replace').strip().splitlines()[-1:] or ['exit status %d' % r['rc']]
            return {'error': tail}
        if warmup and i == 0:
            continue
        results.append(r)
    if check:
        check(results[0]['out'])
    return {'wall': statistics.median(r['wall'] for r in results), 'rss': statistics.median(r['rss'] for r in results),
            'walls': [r['wall'] for r in results]}


def tool_implemented(binary, tool, path):
    r = subprocess.run([binary, 'call', tool, json.dumps({'path': path})], capture_output=True, text=True)
    return 'not implemented' not in (r.stdout + r.stderr)


def machine_info():
    cpu = ''
    try:
        with open('/proc/cpuinfo') as f:
            cpu = next(l.split(':', 1)[1].strip() for l in f if l.startswith('model name'))
    except (OSError, StopIteration):
        pass
    mem = os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES')
    return '%s, %d CPUs, %.1f GiB RAM, Linux %s, Python %s' % (cpu, os.cpu_count(), mem / 2**30, platform.release(),
                                                          platform.python_version())


def fmt_time(s):
    return '%.3f s' % s if s >= 0.1 else '%.2f ms' % (s * 1e3)


def fmt_mb(b):
    return '%.0f MB' % (b / 1e6)


def needs_generating(path, gen):
    """Inputs are kept in --work between runs; one older than the generator binary is made again (an
    input from an earlier generator would measure data the current one no longer writes)."""
    if os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(gen):
        return False
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    return True


def gen_export(gen, work, size):
    out = os.path.join(work, 'export-%s' % size)
    path = os.path.join(out, 'profile_nc0.json')
    if needs_generating(path, gen):
        subprocess.run([gen, '--out', out, '--cores', '1', '--target-bytes', size, '--quiet'], check=True)
    return path


def json_cases(args, binary, gen, rows):
    for size in args.sizes.split(','):
        path = gen_export(gen, args.work, size)
        nbytes = os.path.getsize(path)
        label = 'full JSON export %s (%.2f GB, synthetic)' % (size, nbytes / 1e9)
        py = {}
        for mode in ('on', 'off'):
            py[mode] = median_runs([PY, '-c', PY_AGGREGATE, path, mode], args.runs, preexec=limit_memory, warmup=(mode == 'on'))
            rows.append(case_row(label, 'python json.load + aggregation, GC %s' % mode, py[mode], nbytes, None))
        for tool, extra in (('summary', {}), ('kernel-attribution', {'group_by': 'opcode'})):
            if not tool_implemented(binary, tool, path):
                rows.append((label, 'neuronlens call %s' % tool, 'not implemented in this build', '', '', ''))
                continue
            r = median_runs([binary, 'call', tool, json.dumps(dict(extra, path=path))], args.runs)
            rows.append(case_row(label, 'neuronlens call %s (cold)' % tool, r, nbytes, py))
        # the per-core target: the same cold call pinned to one CPU (the reader then runs on one thread)
        r = median_runs([binary, 'call', 'summary', json.dumps({'path': path})], args.runs, preexec=one_cpu)
        rows.append(case_row(label, 'neuronlens call summary (cold, one CPU)', r, nbytes, py))


def case_row(label, what, r, nbytes, baseline):
    if 'error' in r:
        return (label, what, 'failed: %s' % ' '.join(r['error']), '', '', '')
    ratio = ''
    if baseline:
        parts = []
        for mode, b in baseline.items():
            if 'error' in b:
                parts.append('GC %s: baseline failed' % mode)
            else:
                parts.append('GC %s: %.1f× faster, %.1f× less memory' % (mode, b['wall'] / r['wall'], b['rss'] / r['rss']))
        ratio = '; '.join(parts)
    return (label, what, fmt_time(r['wall']), '%.0f MB/s' % (nbytes / r['wall'] / 1e6) if nbytes else '', fmt_mb(r['rss']), ratio)


def kineto_cases(args, binary, rows):
    out = os.path.join(args.work, 'kineto-%s' % args.kineto_size)
    path = os.path.join(out, 'trace.json')
    if needs_generating(path, args.gen):
        subprocess.run([args.gen, '--out', out, '--kineto', '--kineto-target-bytes', args.kineto_size, '--quiet'], check=True)
    nbytes = os.path.getsize(path)
    label = 'Kineto trace.json (%.2f GB, synthetic)' % (nbytes / 1e9)
    py = {m: median_runs([PY, '-c', PY_KINETO, path, m], args.runs, preexec=limit_memory, warmup=(m == 'on'))
          for m in ('on', 'off')}
    for m in ('on', 'off'):
        rows.append(case_row(label, 'python json.load + aggregation, GC %s' % m, py[m], nbytes, None))
    if not tool_implemented(binary, 'summary', path):
        rows.append((label, 'neuronlens call summary', 'not implemented in this build', '', '', ''))
        return
    r = median_runs([binary, 'call', 'summary', json.dumps({'path': path})], args.runs)
    rows.append(case_row(label, 'neuronlens call summary (cold)', r, nbytes, py))
    r = median_runs([binary, 'call', 'summary', json.dumps({'path': path})], args.runs, preexec=one_cpu)
    rows.append(case_row(label, 'neuronlens call summary (cold, one CPU)', r, nbytes, py))


class Server:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, 'serve'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.n = 0
        self.call('initialize', {'protocolVersion': '2025-11-25', 'capabilities': {},
                                 'clientInfo': {'name': 'bench', 'version': '1'}})

    def call(self, method, params=None):
        self.n += 1
        msg = {'jsonrpc': '2.0', 'id': self.n, 'method': method, 'params': params or {}}
        self.p.stdin.write((json.dumps(msg) + '\n').encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            m = json.loads(line)
            if m.get('id') == self.n:
                return m, len(line)

    def rss(self):
        with open('/proc/%d/status' % self.p.pid) as f:
            return next(int(l.split()[1]) * 1024 for l in f if l.startswith('VmHWM'))

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def warm_cases(args, binary, gen, rows):
    out = os.path.join(args.work, 'export-1M')
    path = os.path.join(out, 'profile_nc0.json')
    if needs_generating(path, gen):
        subprocess.run([gen, '--out', out, '--cores', '1', '--layers', '8', '--instructions-per-layer', '125000', '--quiet'],
                       check=True)
    s = Server(binary)
    t0 = time.perf_counter()
    first, _ = s.call('tools/call', {'name': 'summary', 'arguments': {'path': path}})
    load = time.perf_counter() - t0
    n_instr = first['result'].get('structuredContent', {}).get('instructions', 0)
    label = 'warm calls, %d instructions (model cached)' % n_instr
    rows.append((label, 'first summary (cold load)', fmt_time(load), '', fmt_mb(s.rss()), ''))
    calls = [('orient', {'path': out}), ('summary', {'path': path}),
             ('kernel-attribution', {'path': path, 'group_by': 'opcode'}),
             ('trace-extract', {'path': path, 'kind': 'instruction', 'sort': 'duration'}),
             ('collective-gaps', {'path': out})]
    for tool, a in calls:
        times, size, err = [], 0, None
        for _ in range(21):
            t0 = time.perf_counter()
            r, size = s.call('tools/call', {'name': tool, 'arguments': a})
            times.append(time.perf_counter() - t0)
            if r.get('result', {}).get('isError'):
                err = r['result']['content'][0]['text'][:80]
                break
        if err:
            rows.append((label, tool, 'error: ' + err, '', '', ''))
            continue
        rows.append((label, tool, fmt_time(statistics.median(times[1:])), '', '', 'response %d B' % size))
    rows.append((label, 'server peak RSS after all calls', '', '', fmt_mb(s.rss()), ''))
    s.close()


def startup_cases(args, binary, rows):
    r = subprocess.run([PY, os.path.join(HERE, 'startup.py'), binary, '100'], capture_output=True, text=True, check=True)
    for line in r.stdout.splitlines():
        if line.startswith('| spawn') or line.startswith('| tools/list'):
            cells = [c.strip() for c in line.strip('|').split('|')]
            rows.append(('server over pipes (100 runs)', cells[0], '%s ms (p90 %s)' % (cells[1], cells[2]), '', '', ''))
        if line.startswith('idle RSS'):
            rows.append(('server over pipes (100 runs)', 'idle RSS', '', '', line.split(':')[1].split(';')[0].strip(), ''))


def rank_cases(args, binary, gen, rows):
    base = gen_export(gen, args.work, '8M')
    for ranks in (1, 8, 32):
        d = os.path.join(args.work, 'ranks-%d' % ranks)
        if os.path.exists(d) and os.path.getmtime(d) < os.path.getmtime(base):
            shutil.rmtree(d)
        if not os.path.exists(d):
            for r in range(ranks):
                rd = os.path.join(d, 'i-0bench%04d_pid_%d' % (r, 1000 + r))
                os.makedirs(rd)
                shutil.copy(base, os.path.join(rd, 'profile_nc0.json'))
        label = 'multi-rank capture, %d rank(s) × 8 MB export' % ranks
        r = median_runs([binary, 'call', 'orient', json.dumps({'path': d, 'max_rows': 10})], args.runs)
        rows.append(case_row(label, 'orient', r, 0, None))
        s = Server(binary)
        t0 = time.perf_counter()
        for k in range(ranks):
            s.call('tools/call', {'name': 'summary', 'arguments': {'path': d, 'profile': 'rank%d/profile_nc0' % k}})
        rows.append((label, 'summary of every rank (one server)', fmt_time(time.perf_counter() - t0), '',
                     fmt_mb(s.rss()), ''))
        s.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--work', default=os.path.join(tempfile.gettempdir(), 'nl-bench'))
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--sizes', default='1G,4G')
    ap.add_argument('--kineto-size', default='1G')
    ap.add_argument('--out', default=os.path.join(HERE, 'RESULTS.md'))
    ap.add_argument('--quick', action='store_true', help='small inputs, 3 runs: checks the harness, not a result')
    args = ap.parse_args()
    if args.quick:
        args.runs, args.sizes, args.kineto_size = 3, '64M', '64M'
    binary = os.path.join(args.build, 'neuronlens')
    gen = args.gen = os.path.join(args.build, 'bench', 'nl-gen-profile')
    os.makedirs(args.work, exist_ok=True)
    rows = []
    started = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    for case in (startup_cases, lambda a, b, r: json_cases(a, b, gen, r), lambda a, b, r: kineto_cases(a, b, r),
                 lambda a, b, r: warm_cases(a, b, gen, r), lambda a, b, r: rank_cases(a, b, gen, r)):
        case(args, binary, rows)
        print('\n'.join(' | '.join(row) for row in rows[-3:]), flush=True)
    with open(args.out, 'w') as f:
        f.write('# neuronlens benchmark results\n\n')
        f.write('Generated by `bench/run_bench.py%s` on %s.\n\n' % (' --quick' if args.quick else '', started))
        f.write('Machine: %s.\n\n' % machine_info())
        f.write('Each number is the median of %d runs; peak RSS is the process\'s own '
                'high-water mark (wait4 ru_maxrss). Ratios compare with the baseline measured in the same run. '
                'Inputs are synthetic (nl-gen-profile; exports list every record\'s keys in Go-map order, as real '
                'exports do: bench/README.md, "Key order"). Python baselines run under a 22 GiB address-space limit; '
                'the first run of each input warms the page cache and is not counted.\n\n' % args.runs)
        f.write('| input | case | wall | throughput | peak RSS | vs baseline |\n|---|---|---|---|---|---|\n')
        for row in rows:
            f.write('| %s |\n' % ' | '.join(row))
    print('wrote', args.out)


if __name__ == '__main__':
    main()
