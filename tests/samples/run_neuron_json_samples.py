#!/usr/bin/env python3
"""Samples test: the C readers against the independent Python reference, on every real full-JSON export.

Usage: run_neuron_json_samples.py DUMP_EXE REF_SCRIPT
For each $NL_SAMPLES_DIR/neuron-profile-json/*.json:
  1. `DUMP_EXE FILE` (C: neuron_json → device_model → aggregates) and `REF_SCRIPT FILE` (Python json module)
     must print equal aggregates: integers exactly, floats to 1e-12 relative;
  2. the per-engine instruction counts must equal model_info[0].<engine>_engine_instruction_count;
  3. the file is read again with a 4093-byte read size (chunk boundaries everywhere) and must give the same;
  4. a summary-json built from summary[0] is read by `DUMP_EXE --summary-json` and compared the same way.
Exit 77 (meson: skipped) with the reason printed when the samples are absent.
"""
import json
import os
import subprocess
import sys
import tempfile

ENGINE_OF_SUBGROUP = {"Tensor": "tensor", "Vector": "vector", "Scalar": "scalar", "GpSimd": "gpsimd", "Sync": "sync"}


def ref_python():
    return "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


def run_json(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (" ".join(argv), p.returncode, p.stderr.decode(errors="replace")))
    return json.loads(p.stdout)


def diff(c, py, path, out):
    """Append human-readable differences between two decoded JSON values to `out`."""
    if isinstance(c, bool) or isinstance(py, bool):
        if c is not py:
            out.append("%s: C %r != Python %r" % (path, c, py))
    elif isinstance(c, (int, float)) and isinstance(py, (int, float)):
        if isinstance(c, int) and isinstance(py, int):
            if c != py:
                out.append("%s: C %d != Python %d" % (path, c, py))
        elif abs(c - py) > 1e-12 * max(abs(c), abs(py)):
            out.append("%s: C %r != Python %r" % (path, c, py))
    elif isinstance(c, dict) and isinstance(py, dict):
        for k in sorted(set(c) | set(py)):
            if k not in c:
                out.append("%s.%s: missing in C" % (path, k))
            elif k not in py:
                out.append("%s.%s: missing in Python" % (path, k))
            else:
                diff(c[k], py[k], "%s.%s" % (path, k), out)
    elif isinstance(c, list) and isinstance(py, list):
        if len(c) != len(py):
            out.append("%s: C has %d items, Python %d" % (path, len(c), len(py)))
        for i, (a, b) in enumerate(zip(c, py)):
            diff(a, b, "%s[%d]" % (path, i), out)
    elif c != py:
        out.append("%s: C %r != Python %r" % (path, c, py))


def check_engine_counts(agg, name, problems):
    info = agg["records"].get("model_info", {})
    for subgroup, count in agg["instruction"]["per_engine"].items():
        key = "%s_engine_instruction_count" % ENGINE_OF_SUBGROUP.get(subgroup, subgroup.lower())
        if info.get(key) != count:
            problems.append("%s: %s instructions = %d but model_info.%s = %r"
                            % (name, subgroup, count, key, info.get(key)))


def check_file(dump, ref, path, problems):
    name = os.path.basename(path)
    c = run_json([dump, path])
    py = run_json([ref_python(), ref, path])
    before = len(problems)
    diff(c, py, name, problems)
    check_engine_counts(py, name, problems)
    diff(run_json([dump, "--read-size", "4093", path]), c, name + "(4093-byte reads)", problems)
    summary = {"n_" + "0" * 40: json.load(open(path, "rb"))["summary"][0]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(summary, f)
    try:
        diff(run_json([dump, "--summary-json", f.name]), run_json([ref_python(), ref, "--summary-json", f.name]),
             name + "(summary-json)", problems)
    finally:
        os.unlink(f.name)
    i = c["instruction"]
    print("%s: %d instructions (%s), %d dma packets / %d aggregated, %d summary keys: %s" % (
        name, i["count"], ", ".join("%s %d" % kv for kv in sorted(i["per_engine"].items())),
        c["dma"]["packets"], c["dma"]["aggregated"], len(c["records"].get("summary", {})),
        "ok" if len(problems) == before else "%d differences" % (len(problems) - before)))


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    dump, ref = argv[1], argv[2]
    root = os.environ.get("NL_SAMPLES_DIR", "")
    folder = os.path.join(root, "neuron-profile-json")
    files = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json")) \
        if root and os.path.isdir(folder) else []
    if not files:
        print("skipping: no real full-JSON exports under NL_SAMPLES_DIR=%r (expected %s/*.json)" % (root, folder))
        return 77
    problems = []
    for path in files:
        check_file(dump, ref, path, problems)
    for p in problems:
        print("DIFF " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
