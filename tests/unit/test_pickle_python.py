#!/usr/bin/python3
"""The pickle reader (analyzers/readers/pickle.c) against Python's own pickle, standard library only.

Usage: test_pickle_python.py PICKLE_JSON_EXE

Objects are built here (random ones from fixed seeds, plus the shapes a streaming reader can get wrong:
an empty list followed by a list, a list holding one list, an empty dict value followed by a key, batches
of 1000+ items, shared lists/dicts/strings read back from the memo, integers at every width, floats
including NaN and -0.0, lone surrogates), pickled with protocols 1-5 at test time, read back through
PICKLE_JSON_EXE (tests/unit/pickle_json.c) and compared with the same encoding of the object computed here:
dict → {"$dict": [[k, v], ...]}, list/tuple → list, bytes → {"$bytes": hex}, int outside int64 →
{"$bigint": true}. Some files are also pushed 1, 2, 7 and 4093 bytes at a time (the smallest real snapshot byte by byte). Pickles the reader must
refuse (protocol 0 text opcodes, a class instance, a tuple holding a list) must fail with the right code.
When $NL_SAMPLES_DIR/memory-snapshot holds the real snapshots they are compared too (else said, not failed).
Exit 0 when everything matches, 1 otherwise.
"""
import io
import json
import math
import os
import pickle
import random
import struct
import subprocess
import sys
import tempfile

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
FAILS = []


def enc(o):
    if isinstance(o, dict):
        return {'$dict': [[enc(k), enc(v)] for k, v in o.items()]}
    if isinstance(o, (list, tuple)):
        return [enc(x) for x in o]
    if isinstance(o, (bytes, bytearray)):
        return {'$bytes': bytes(o).hex()}
    if isinstance(o, bool) or o is None or isinstance(o, (str, float)):
        return o
    if isinstance(o, int):
        return o if INT64_MIN <= o <= INT64_MAX else {'$bigint': True}
    raise TypeError(type(o))


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return struct.pack('<d', a) == struct.pack('<d', b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def run(exe, path, *extra):
    p = subprocess.run([exe, *extra, path], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check(exe, name, obj, data, extras=((),)):
    with tempfile.NamedTemporaryFile(suffix='.pickle', delete=False) as f:
        f.write(data)
        path = f.name
    try:
        want = enc(obj)
        for extra in extras:
            rc, out, errs = run(exe, path, *extra)
            if rc != 0:
                FAILS.append(f'{name} {extra}: exit {rc}: {errs.strip()}')
                return
            got = json.loads(out)
            if not same(got, want):
                FAILS.append(f'{name} {extra}: differs\n  got  {out[:300]}\n  want {json.dumps(want)[:300]}')
                return
    finally:
        os.unlink(path)


def expect_error(exe, name, data, code, words):
    with tempfile.NamedTemporaryFile(suffix='.pickle', delete=False) as f:
        f.write(data)
        path = f.name
    try:
        rc, out, errs = run(exe, path)
        if rc != 1 or f'error {code} ' not in errs or any(w not in errs for w in words):
            FAILS.append(f'{name}: expected error {code} {words}, got exit {rc}: {errs.strip()}')
    finally:
        os.unlink(path)


# ---- objects ----------------------------------------------------------------------------------------------

def scalar(rng, proto):
    k = rng.randrange(12)
    if k == 0:
        return None
    if k == 1 and proto >= 2:
        return rng.random() < 0.5
    if k == 2:
        return rng.choice([0, 1, -1, 255, 256, 65535, 65536, -65536, (1 << 31) - 1, -(1 << 31)])
    if k == 3 and proto >= 2:
        return rng.choice([1 << 31, -(1 << 31) - 1, (1 << 40) + 7, INT64_MAX, INT64_MIN, 1 << 63,
                           -(1 << 63) - 1, 1 << 100, -(1 << 100), 140037408686080])
    if k == 4:
        return rng.choice([0.0, -0.0, 1.5, 1 / 3, 1e308, -1e-308, float('inf'), float('-inf'), float('nan')])
    if k == 5:
        return rng.choice(['', 'a', 'frames', 'größe', '\u65e5\u672c', '\U0001f600', 'x' * 300, '\ud800',
                           'tab\t"quote"\\', '\x00nul'])
    if k == 6 and proto >= 3:
        return rng.choice([b'', b'\x00\xff', bytes(range(40)), b'y' * 300])
    if k == 7 and proto >= 5:
        return bytearray(b'ba' * rng.randrange(4))
    return rng.randrange(-1000, 1000)


def key(rng, proto):
    k = rng.randrange(4)
    if k == 0:
        return rng.randrange(-5, 50)
    if k == 1:
        return tuple(rng.randrange(9) for _ in range(rng.randrange(4)))
    return rng.choice(['address', 'size', 'frames', 'name', 'k%d' % rng.randrange(40), ''])


def build(rng, proto, depth, pool):
    r = rng.random()
    if pool and r < 0.12:
        return rng.choice(pool)  # shared: pickled once, then read back from the memo
    if depth <= 0 or r < 0.35:
        return scalar(rng, proto)
    if r < 0.6:
        n = rng.choice([0, 0, 1, 1, 2, 3, 5, 8])
        o = [build(rng, proto, depth - 1, pool) for _ in range(n)]
    elif r < 0.85:
        o = {}
        for _ in range(rng.choice([0, 0, 1, 1, 2, 4, 6])):
            o[key(rng, proto)] = build(rng, proto, depth - 1, pool)
    else:
        items = []
        for _ in range(rng.randrange(5)):
            x = scalar(rng, proto)
            items.append(x)  # scalars only: a list or dict first pickled inside a tuple is refused
        o = tuple(items)
    if isinstance(o, (list, dict)) or (isinstance(o, tuple) and not any(isinstance(x, tuple) for x in o)):
        pool.append(o)
    return o


def deep(n):
    o = []
    for _ in range(n - 1):
        o = [o]
    return o


def edge_cases():
    shared = [1, 2]
    fr = {'name': 'f', 'filename': 'a.py', 'line': 3}
    stack = [fr, fr]
    big = list(range(2500))
    return {
        'empty_then_list': [[], [1, 2]],
        'list_in_list': [[[1, 2]]],
        'two_singletons': [[{'e': 1}], [{'e': 2}]],
        'empty_then_dict': [[], {}],
        'list_of_empty': [[], [], []],
        'empty_dict_value_then_key': {'a': {}, 'b': [1, [2, {}]]},
        'dict_in_dict': {'a': {'b': [1, 2]}},
        'dict_single_item_chain': {'a': {'b': {'c': {'d': []}}}},
        'batch_2500': big,
        'batch_1000_dicts': [{'i': i} for i in range(1001)],
        'dict_1500': {('k%d' % i): i for i in range(1500)},
        'dict_1000_then_one': {('k%d' % i): [i] for i in range(1001)},
        'nested_batches': [[list(range(1001)), list(range(1000))], list(range(999)), [[]]],
        'shared_lists': [shared, shared, {'x': shared}, (shared, 5)],
        'shared_frames': {'a': stack, 'b': stack, 'c': [fr, {'name': 'g', 'filename': 'b.py', 'line': 4}, fr]},
        'shared_string': ['frames'] * 5 + ['frames' + 'x'],
        'tuples': [(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4, 5), {(0, 0): 'pool'}],
        'deep_40': deep(40),
        'root_scalar_int': 7,
        'root_scalar_str': 'hello',
        'root_tuple': (1, 'a'),
        'root_empty_list': [],
        'root_none': None,
    }


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    exe = sys.argv[1]
    feeds = ((), ('--feed', '1'), ('--feed', '2'), ('--feed', '7'), ('--read-size', '4093'))
    n = 0
    for name, obj in edge_cases().items():
        for proto in (2, 3, 4, 5):
            check(exe, f'{name} p{proto}', obj, pickle.dumps(obj, protocol=proto), feeds if proto == 4 else ((),))
            n += 1
    for seed in range(160):
        rng = random.Random(seed)
        proto = (2, 3, 4, 5)[seed % 4]
        obj = build(rng, proto, 6, [])
        data = pickle.dumps(obj, protocol=proto)
        check(exe, f'random seed {seed} p{proto}', obj, data, feeds if seed % 40 == 0 else ((),))
        n += 1
    # protocol 1: binary opcodes, no bools and no ints beyond 32 bits (those are text opcodes there)
    for seed in range(20):
        rng = random.Random(1000 + seed)
        obj = build(rng, 1, 5, [])
        check(exe, f'random seed {seed} p1', obj, pickle.dumps(obj, protocol=1))
        n += 1
    expect_error(exe, 'protocol 0 dict', pickle.dumps({'a': 1}, protocol=0), 'unsupported', ['DICT', 'at 1'])
    expect_error(exe, 'class instance', pickle.dumps(io.StringIO), 'unsupported', ['STACK_GLOBAL', 'import or call'])
    expect_error(exe, 'tuple holding a list', pickle.dumps(([1],), protocol=4), 'unsupported', ['TUPLE1'])
    n += 3
    samples = os.path.join(os.environ.get('NL_SAMPLES_DIR', ''), 'memory-snapshot')
    if os.path.isdir(samples):
        paths = sorted(os.path.join(samples, f) for f in os.listdir(samples) if f.endswith('.pickle'))
        smallest = min(paths, key=os.path.getsize) if paths else None
        for path in paths:
            with open(path, 'rb') as f:
                data = f.read()
            extra = ('--feed', '1') if path == smallest else ('--feed', '4093')
            check(exe, os.path.basename(path), pickle.loads(data), data, ((), extra, ('--read-size', '4093')))
            n += 1
    else:
        print(f'note: {samples} is absent; the real snapshots were not compared')
    for f in FAILS:
        print('FAIL', f)
    print(f'{n - len(FAILS)} of {n} cases match Python')
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
