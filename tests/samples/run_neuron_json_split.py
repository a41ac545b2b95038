#!/usr/bin/env python3
"""Samples test: the split read (analyzers/readers/neuron_json_par.c) builds exactly the sequential read's
model, checked exhaustively by neuron_json_split_check (every string id, cell, dictionary code, record and
note), on:
  1. every real export in $NL_SAMPLES_DIR/neuron-profile-json (cut after every 1, 3 and 17 records, through
     the file and through memory, on 2 and 4 threads);
  2. exports written by bench/nl-gen-profile at several sizes and shapes, with the default pieces (whole
     table segments, merged by copy; the 40 MB export has more than one segment of instructions and dma)
     and with pieces that are not segment-aligned (merged row by row).
Usage: run_neuron_json_split.py CHECK_EXE GENERATOR_EXE. Part 1 is skipped (and says so) when the samples
are absent; part 2 always runs. Exit 0 ok, 1 a difference, 77 nothing to run.
"""
import glob
import os
import subprocess
import sys
import tempfile


def check(exe, path, *args):
    p = subprocess.run([exe, *args, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.strip()
    ok = p.returncode == 0 and line.startswith("same")
    print("%s %s %s: %s" % ("ok  " if ok else "FAIL", os.path.basename(path), " ".join(args), line or p.stderr.strip()))
    return ok


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, gen = sys.argv[1], sys.argv[2]
    ok = True
    samples = os.path.join(os.environ.get("NL_SAMPLES_DIR", ""), "neuron-profile-json")
    files = sorted(glob.glob(os.path.join(samples, "*.json")))
    if not files:
        print("skip part 1: no real exports in %s" % samples)
    for f in files:
        for records in ("1", "3", "17"):
            ok &= check(exe, f, "--records", records)
            ok &= check(exe, f, "--mem", "--threads", "4", "--records", records)
    with tempfile.TemporaryDirectory() as tmp:
        shapes = [("3M", ["--cores", "1"], ["100", "1000"]),
                  ("40M", ["--cores", "1"], ["0", "5000"]),
                  ("6M", ["--cores", "1", "--missing-dge", "--no-source", "--seed", "7"], ["333"]),
                  ("2M", ["--cores", "2", "--layers", "3"], ["64"])]
        for i, (size, extra, records) in enumerate(shapes):
            out = os.path.join(tmp, "g%d" % i)
            subprocess.run([gen, "--out", out, "--target-bytes", size, "--quiet", *extra], check=True)
            for f in sorted(glob.glob(os.path.join(out, "profile_nc*.json"))):
                for r in records:
                    ok &= check(exe, f, "--records", r)
                    ok &= check(exe, f, "--mem", "--threads", "3", "--records", r)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
