#!/usr/bin/env python3
"""Build the libFuzzer targets of tests/fuzz and run each for a bounded time; fail on any finding.

Usage: tests/fuzz/run.py [--seconds N] [--targets a,b] [--build-dir DIR] [--no-build] [--max-len N]
                         [--rss-limit-mb N] [--timeout N] [--markdown]

Steps (stdlib Python only):
  1. configure DIR (default build-fuzz) as a clang build with -Dfuzz=true -Db_sanitize=address,undefined
     -Dtests=disabled when it is not configured yet, then `ninja fuzz` (the targets and nl-gen-profile);
  2. make seed files at run time in DIR/fuzz-work/<target>/seeds from the real samples (NL_SAMPLES_DIR,
     default ../shared/samples; skipped with a printed reason when absent) and from a small profile written
     by bench's nl-gen-profile, as each target's `fuzz-seeds:` header line asks (kinds below);
  3. run the targets one after another (one process each, -jobs/-workers unused: the machine is shared),
     each for --seconds (default $NL_FUZZ_SECONDS or 45) with the target's `fuzz-max-len:` (or --max-len),
     its dictionary, -rss_limit_mb and a per-input -timeout, on a corpus kept in DIR/fuzz-work/<target>/corpus
     (grown across runs) plus the seeds plus the committed corpus tests/fuzz/corpus/<target>;
  4. print per target the executions, speed, coverage (libFuzzer's cov/ft, and covered/total edges of the
     source files it reached most) and peak RSS; on a crash, leak, timeout or out-of-memory print the
     sanitizer report, the saved reproducer and the command that replays it, and exit 1.

Seed kinds (`<kind>:<dir>:<pattern>`, files named <pattern> anywhere below <dir>; <dir> starts with `samples`
or `gen`):
  raw       the file as it is (libFuzzer cuts it to max_len)
  export    a full JSON export with each top-level array cut to its first 3 records
  kineto    a Kineto trace (gzip or not) cut to its first 40 events, written plain and gzipped
  ntff      an NTFF cut 64 bytes after its metadata block
  neff-tar  a NEFF as header + an uncompressed tar of its JSON members and 64-byte stubs of the others
            (fuzz_neff gzips it), and neff-gz the same gzipped with data_size set (a valid, small NEFF)
  pbstream  a [u32 length][message] stream cut to its first 24 records
  lines     a text file keeping the first 40 lines after each "... trace for ..." header
Exit status: 0 all clean, 1 a finding or a build failure, 2 usage, 77 skipped (no clang / libFuzzer).
"""
import argparse
import fnmatch
import gzip
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def log(msg):
    print(msg, flush=True)


# ---- targets and their header lines ----------------------------------------------------------------------

def target_names():
    """The list in tests/fuzz/meson.build (one quoted name per line inside fuzz_targets = [...])."""
    text = open(os.path.join(HERE, 'meson.build')).read()
    block = re.search(r'fuzz_targets\s*=\s*\[(.*?)\]', text, re.S).group(1)
    return re.findall(r"'([a-z0-9_]+)'", block)


def target_meta(name):
    src = open(os.path.join(HERE, 'fuzz_%s.c' % name)).read()
    header = src[:src.index('*/') + 2] if '*/' in src else src
    meta = {'max_len': 4096, 'seeds': [], 'dict': None}
    for line in header.splitlines():
        m = re.match(r'\s*\*\s*fuzz-(max-len|seeds|dict):\s*(.*?)\s*(\*/)?\s*$', line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if key == 'max-len':
            meta['max_len'] = int(value)
        elif key == 'dict':
            meta['dict'] = os.path.join(HERE, 'dict', value)
        else:
            meta['seeds'] += [v for v in value.split() if v.count(':') == 2]
    return meta


# ---- seeds -------------------------------------------------------------------------------------------------

def find_files(root, pattern):
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.join(d, f) for f in files if fnmatch.fnmatch(f, pattern)]
    return sorted(out)


def seed_export(data):
    doc = json.loads(data)
    if not isinstance(doc, dict):
        return [data]
    small = {k: (v[:3] if isinstance(v, list) else v) for k, v in doc.items()}
    return [json.dumps(small, separators=(',', ':')).encode()]


def seed_kineto(data):
    text = gzip.decompress(data) if data[:2] == b'\x1f\x8b' else data
    doc = json.loads(text)
    if isinstance(doc, dict) and isinstance(doc.get('traceEvents'), list):
        doc['traceEvents'] = doc['traceEvents'][:40]
    elif isinstance(doc, list):
        doc = doc[:40]
    plain = json.dumps(doc).encode()
    return [plain, gzip.compress(plain, mtime=0)]


def seed_ntff(data):
    if len(data) < 4:
        return [data]
    meta = data[1] | data[2] << 8 | data[3] << 16
    return [data[:128 + meta + 64]]


def reduced_tar(payload):
    src = tarfile.open(fileobj=io.BytesIO(zlib.decompress(payload, 47)))
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode='w', format=tarfile.GNU_FORMAT) as dst:
        for m in src.getmembers():
            body = src.extractfile(m).read() if m.isfile() else b''
            if not (m.name.endswith('.json') and len(body) <= 16384):
                body = body[:64]
            info = tarfile.TarInfo(m.name)
            info.size, info.mtime, info.type = len(body), 0, m.type if not m.isfile() else tarfile.REGTYPE
            dst.addfile(info, io.BytesIO(body))
    return out.getvalue().rstrip(b'\0') + b'\0' * 1024  # drop the record padding, keep the end blocks


def seed_neff(data, gz):
    if len(data) < 1026 or data[1024:1026] != b'\x1f\x8b':
        return [data]
    tar = reduced_tar(data[1024:])
    header = bytearray(data[:1024])
    if gz:
        tar = gzip.compress(tar, mtime=0)
    struct.pack_into('<Q', header, 16, len(tar))
    return [bytes(header) + tar]


def seed_pbstream(data):
    at, n = 0, 0
    while n < 24 and at + 4 <= len(data):
        at += 4 + struct.unpack_from('<I', data, at)[0]
        n += 1
    return [data[:min(at, len(data))]]


def seed_lines(data):
    out, since = [], None  # lines since the last "... trace for ..." header; None before the first one
    for line in data.split(b'\n'):
        since = 0 if b' trace for ' in line else None if since is None else since + 1
        if since is None or since <= 40:
            out.append(line)
    return [b'\n'.join(out)]


SEED_KINDS = {
    'raw': lambda d: [d],
    'export': seed_export,
    'kineto': seed_kineto,
    'ntff': seed_ntff,
    'neff-tar': lambda d: seed_neff(d, False),
    'neff-gz': lambda d: seed_neff(d, True),
    'pbstream': seed_pbstream,
    'lines': seed_lines,
}


def generate_profile(build_dir, out_dir):
    """A small synthetic profile set (bench/README.md) to seed from; returns its directory or None."""
    gen = os.path.join(build_dir, 'bench', 'nl-gen-profile')
    if os.path.isdir(out_dir):
        return out_dir
    cmd = [gen, '--out', out_dir, '--layers', '2', '--cores', '1', '--instructions-per-layer', '50', '--capture',
           '--kineto', '--executions', '2', '--quiet']
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        log('fuzz: nl-gen-profile failed (%d): %s; no generated seeds' % (r.returncode, r.stderr.strip()))
        shutil.rmtree(out_dir, ignore_errors=True)
        return None
    return out_dir


def make_seeds(name, meta, roots, seeds_dir):
    shutil.rmtree(seeds_dir, ignore_errors=True)
    os.makedirs(seeds_dir)
    count = 0
    for spec in meta['seeds']:
        kind, d, pattern = spec.split(':')
        top, _, rest = d.partition('/')
        if roots.get(top) is None:
            continue
        for path in find_files(os.path.join(roots[top], rest), pattern):
            try:
                pieces = SEED_KINDS[kind](open(path, 'rb').read())
            except Exception as e:  # a sample this kind cannot shrink is seeded as it is
                log('fuzz: %s: seed %s from %s: %s; using the file as it is' % (name, kind, path, e))
                pieces = [open(path, 'rb').read()]
            for i, data in enumerate(pieces):
                base = '%s-%s-%s-%d' % (top, kind, os.path.basename(path), i)
                with open(os.path.join(seeds_dir, base), 'wb') as f:
                    f.write(data)
                count += 1
    return count


# ---- running -----------------------------------------------------------------------------------------------

def coverage_by_file(text):
    """covered/total edges per source file from libFuzzer's -print_coverage lines."""
    files = {}
    for m in re.finditer(r'^(UN)?COVERED_FUNC: hits: \d+ edges: (\d+)/(\d+) \S+ (\S+?):\d+', text, re.M):
        path = m.group(4)
        if '/tests/' in path or not (path.startswith(ROOT) or path.startswith('..')):
            continue  # the harness and its helpers, system headers
        f = files.setdefault(os.path.basename(path), [0, 0])
        f[0] += int(m.group(2))
        f[1] += int(m.group(3))
    return files


def run_target(name, meta, args, build_dir, work):
    exe = os.path.join(build_dir, 'tests', 'fuzz', 'fuzz_' + name)
    corpus = os.path.join(work, 'corpus')
    artifacts = os.path.join(work, 'artifacts') + '/'
    os.makedirs(corpus, exist_ok=True)
    shutil.rmtree(artifacts, ignore_errors=True)
    os.makedirs(artifacts)
    max_len = args.max_len or meta['max_len']
    cmd = [exe, corpus, os.path.join(work, 'seeds'), os.path.join(HERE, 'corpus', name),
           '-max_total_time=%d' % args.seconds, '-max_len=%d' % max_len, '-rss_limit_mb=%d' % args.rss_limit_mb,
           '-timeout=%d' % args.timeout, '-artifact_prefix=' + artifacts, '-print_final_stats=1',
           '-print_coverage=1', '-detect_leaks=1', '-close_fd_mask=1']
    if meta['dict']:
        cmd.append('-dict=' + meta['dict'])
    env = dict(os.environ, UBSAN_OPTIONS='halt_on_error=1:print_stacktrace=1',
               ASAN_OPTIONS='detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=64')
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    elapsed = time.monotonic() - t0
    text = r.stdout.decode('utf-8', 'replace')
    with open(os.path.join(work, 'last-run.log'), 'w') as f:
        f.write(' '.join(cmd) + '\n' + text)
    stat = lambda key: int((re.findall(r'stat::%s:\s*(\d+)' % key, text) or ['0'])[-1])
    progress = re.findall(r'cov: (\d+) ft: (\d+) corp: (\d+)/', text)
    cov, ft, corp = progress[-1] if progress else ('?', '?', '?')
    files = coverage_by_file(text)
    top = sorted((kv for kv in files.items() if kv[1][0]), key=lambda kv: -kv[1][0])[:4]
    res = {'name': name, 'seconds': elapsed, 'execs': stat('number_of_executed_units'), 'cov': cov, 'ft': ft,
           'corpus': corp, 'rss': stat('peak_rss_mb'), 'max_len': max_len, 'ok': r.returncode == 0,
           'files': ', '.join('%s %d/%d' % (f, c, t) for f, (c, t) in top)}
    if r.returncode != 0:
        found = sorted(os.listdir(artifacts))
        report = text[text.find('==ERROR') if '==ERROR' in text else max(0, len(text) - 6000):]
        report = re.sub(r'^(UN)?COVERED_FUNC: .*\n', '', report, flags=re.M)
        log('fuzz: %s FAILED (exit %d); its report:\n%s' % (name, r.returncode, report[:12000]))
        for a in found:
            path = artifacts + a
            data = open(path, 'rb').read()
            log('fuzz: %s: reproducer %s (%d bytes): %r%s' % (name, path, len(data), data[:300],
                                                            '...' if len(data) > 300 else ''))
            log('fuzz: replay it with: %s %s' % (exe, path))
        if not found:
            log('fuzz: %s: no reproducer was saved; full log in %s' % (name, os.path.join(work, 'last-run.log')))
    return res


def setup_build(build_dir, no_build):
    if not no_build:
        if not os.path.isfile(os.path.join(build_dir, 'build.ninja')):
            if not shutil.which('clang'):
                log('fuzz: SKIP: clang is not installed (apt-get install clang libclang-rt-14-dev)')
                return 77
            env = dict(os.environ, CC='clang')
            r = subprocess.run(['meson', 'setup', build_dir, '-Dfuzz=true', '-Db_sanitize=address,undefined',
                                '-Db_lundef=false', '-Dtests=disabled'], cwd=ROOT, env=env)
            if r.returncode != 0:
                return 1
        r = subprocess.run(['ninja', '-C', build_dir, 'fuzz'], cwd=ROOT)
        if r.returncode != 0:
            log('fuzz: the fuzz build failed (is libclang-rt-14-dev installed for -fsanitize=fuzzer?)')
            return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seconds', type=int, default=int(os.environ.get('NL_FUZZ_SECONDS', '45')))
    ap.add_argument('--targets', default='', help='comma-separated names (default: all in meson.build)')
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build-fuzz'))
    ap.add_argument('--no-build', action='store_true')
    ap.add_argument('--max-len', type=int, default=0, help='override every target\'s fuzz-max-len')
    ap.add_argument('--rss-limit-mb', type=int, default=1536)
    ap.add_argument('--timeout', type=int, default=10, help='seconds one input may take')
    ap.add_argument('--markdown', action='store_true', help='print the summary as a Markdown table')
    args = ap.parse_args()
    build_dir = os.path.abspath(args.build_dir)
    names = target_names()
    if args.targets:
        wanted = args.targets.split(',')
        unknown = [t for t in wanted if t not in names]
        if unknown:
            log('fuzz: unknown targets: %s (have: %s)' % (', '.join(unknown), ', '.join(names)))
            return 2
        names = wanted
    rc = setup_build(build_dir, args.no_build)
    if rc:
        return rc
    work_root = os.path.join(build_dir, 'fuzz-work')
    os.makedirs(work_root, exist_ok=True)
    samples = os.environ.get('NL_SAMPLES_DIR', os.path.join(ROOT, '..', 'shared', 'samples'))
    if not os.path.isdir(samples):
        log('fuzz: no samples at %s (set NL_SAMPLES_DIR): seeding from the generator and the corpus only' % samples)
        samples = None
    roots = {'samples': samples, 'gen': generate_profile(build_dir, os.path.join(work_root, 'gen'))}
    results = []
    for name in names:
        meta = target_meta(name)
        work = os.path.join(work_root, name)
        n = make_seeds(name, meta, roots, os.path.join(work, 'seeds'))
        log('fuzz: %s: %d s, max_len %d, %d seeds' % (name, args.seconds, args.max_len or meta['max_len'], n))
        results.append(run_target(name, meta, args, build_dir, work))
        r = results[-1]
        log('fuzz: %s: %s, %d execs in %.0f s (%.0f/s), cov %s ft %s, corpus %s, peak %d MB; %s' % (
            name, 'ok' if r['ok'] else 'FAILED', r['execs'], r['seconds'], r['execs'] / max(r['seconds'], 1e-9),
            r['cov'], r['ft'], r['corpus'], r['rss'], r['files']))
    if args.markdown:
        log('\n| target | time (s) | execs | exec/s | cov | ft | corpus | peak RSS (MB) '
            '| edges of the files reached most |')
        log('|---|---:|---:|---:|---:|---:|---:|---:|---|')
        for r in results:
            log('| %s | %.0f | %d | %.0f | %s | %s | %s | %d | %s |' % (
                r['name'], r['seconds'], r['execs'], r['execs'] / max(r['seconds'], 1e-9), r['cov'], r['ft'],
                r['corpus'], r['rss'], r['files']))
    failed = [r['name'] for r in results if not r['ok']]
    if failed:
        log('fuzz: FAILED: %s' % ', '.join(failed))
        return 1
    log('fuzz: all %d targets ran clean' % len(results))
    return 0


if __name__ == '__main__':
    sys.exit(main())
