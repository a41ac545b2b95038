#!/usr/bin/env python3
"""Benchmark of the NTFF payload decoder (analyzers/readers/ntff_payload*.c) on synthetic NTFFs.

Usage: ntff_bench.py --gen BUILD/bench/nl-gen-profile --bench BUILD/bench/ntff-bench
                     [--sizes 1G,2G] [--runs 3] [--dir DIR] [--keep] [--model-sizes 1G]

For each size: `nl-gen-profile --ntff-out` writes a v5 (inf2-like) NTFF with two cores, then `ntff-bench` runs
  scan, 1 thread    the record scan on one core (origin pass + instruction, DMA, semaphore scans)
  scan, all CPUs    the same scans spread over every online CPU
  model, 1 thread   ntff_payload_fill_model per core (sizes in --model-sizes only: the model grows with rows)
Each case runs once to warm the page cache (not counted), then --runs times; the table shows medians of wall
time, CPU time (user + sys, from wait4) and the process's peak RSS (ru_maxrss). Throughput is file bytes per
second of wall time and per second of CPU time (the per-core rate, which does not depend on how busy the
machine is). The generated files are deleted at the end unless --keep. Prints a Markdown table.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def parse_size(s):
    mul = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1].upper(), 1)
    return int(float(s[:-1] if s[-1].isalpha() else s) * mul)


def measure(argv):
    """(wall s, cpu s, peak RSS bytes, parsed JSON stdout)"""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = b"", b""
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(argv), err.decode(errors="replace")))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024, json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--sizes", default="1G,2G")
    ap.add_argument("--model-sizes", default="1G")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    work = a.dir or tempfile.mkdtemp(prefix="ntff-bench-")
    rows = []
    load = os.getloadavg()
    files = []
    try:
        for size in a.sizes.split(","):
            path = os.path.join(work, "synthetic_%s.ntff" % size)
            files += [path, path + ".expected.json"]
            t0 = time.monotonic()
            subprocess.run([a.gen, "--ntff-out", path, "--ntff-version", "5", "--cores", "2",
                            "--ntff-target-bytes", size, "--quiet"], check=True)
            gen_s = time.monotonic() - t0
            nbytes = os.path.getsize(path)
            cases = [("scan, 1 thread", ["--mode", "scan", "--threads", "1"]),
                     ("scan, all CPUs", ["--mode", "scan", "--threads", "0"])]
            if size in a.model_sizes.split(","):
                cases.append(("model, 1 thread", ["--mode", "model", "--threads", "1"]))
            for name, args in cases:
                argv = [a.bench] + args + [path]
                measure(argv)  # page cache warm-up
                runs = [measure(argv) for _ in range(a.runs)]
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                rss = statistics.median(r[2] for r in runs)
                info = runs[0][3]
                rows.append((size, nbytes, name, wall, cpu, rss, info, gen_s))
                print("%s %s: wall %.3f s, cpu %.3f s, rss %.1f MB" % (size, name, wall, cpu, rss / 1e6),
                      file=sys.stderr)
    finally:
        if not a.keep:
            for f in files:
                if os.path.exists(f):
                    os.remove(f)
            if not a.dir:
                os.rmdir(work)
    print("Load average before the run: %.2f %.2f %.2f; %d online CPUs.\n" % (load[0], load[1], load[2],
                                                                           os.cpu_count()))
    print("| input | case | wall | MB/s (wall) | CPU (user+sys) | MB/s per CPU second | peak RSS | rows |")
    print("|---|---|---|---|---|---|---|---|")
    for size, nbytes, name, wall, cpu, rss, info, gen_s in rows:
        print("| %s NTFF v5, 2 cores (%.2f GB, %d records; generated in %.1f s) | %s | %.3f s | %.0f | %.3f s | %.0f | "
              "%.0f MB | %d instructions, %d DMA, %d semaphores |" % (
                  size, nbytes / 1e9, info["records"], gen_s, name, wall, nbytes / wall / 1e6, cpu, nbytes / cpu / 1e6,
                  rss / 1e6, info["instructions"], info["dma"], info["semaphores"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
