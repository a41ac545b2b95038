#!/usr/bin/env python3
"""Readers test (no samples needed): the NTFF payload decoder on synthetic NTFFs from
`nl-gen-profile --ntff-out` (bench/gen_ntff.c), both layouts (v5 inf2-like, v6 trn2-like), two cores.

Usage: test_ntff_generated.py GEN_EXE DUMP_EXE REF_SCRIPT
1. The generator is deterministic: the same options write the same bytes.
2. The C decoder (DUMP_EXE, with 1 and 2 threads and 4 KiB reads) and the stdlib-Python reference
   (REF_SCRIPT) give the same rows, origin rule and counts.
3. Both equal what the generator says it wrote (FILE.expected.json): visible instructions per engine, DMA
   packets visible and before the origin, semaphore and kind-5 records, the origin rule.
"""
import filecmp
import json
import os
import subprocess
import sys
import tempfile

ENGINES = ("Tensor", "Scalar", "GpSimd", "Vector", "Sync")


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (" ".join(argv), p.returncode, p.stderr.decode(errors="replace")))
    return p.stdout


def main():
    gen, dump, ref = sys.argv[1:4]
    failures = []
    py = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        for version in (5, 6):
            path = os.path.join(tmp, "v%d.ntff" % version)
            again = os.path.join(tmp, "v%d-again.ntff" % version)
            args = ["--ntff-version", str(version), "--ntff-target-bytes", "600K", "--cores", "2", "--seed", "7",
                    "--quiet"]
            run([gen, "--ntff-out", path] + args)
            run([gen, "--ntff-out", again] + args)
            if not filecmp.cmp(path, again, shallow=False):
                failures.append("v%d: two runs with the same options wrote different bytes" % version)
            expected = json.load(open(path + ".expected.json"))
            c = json.loads(run([dump, path]))
            for variant in (["--threads", "1"], ["--threads", "2", "--chunk", "4096"]):
                if json.loads(run([dump] + variant + [path])) != c:
                    failures.append("v%d: C output differs with %s" % (version, " ".join(variant)))
            r = json.loads(run([py, ref, path]))
            if len(c["cores"]) != 2 or len(r["cores"]) != 2 or len(expected["cores"]) != 2:
                failures.append("v%d: core counts %d/%d/%d" % (version, len(c["cores"]), len(r["cores"]),
                                                               len(expected["cores"])))
                continue
            for cc, rc, xc in zip(c["cores"], r["cores"], expected["cores"]):
                where = "v%d %s" % (version, cc["name"])
                for table in ("instructions", "dma", "semaphores"):
                    if cc[table] != rc[table]:
                        failures.append("%s: %s differ between C and Python" % (where, table))
                st = cc["stats"]
                got = {"rule": cc["origin"]["rule"],
                       "visible": {e: st["instr"]["instr_per_engine"][e] for e in ENGINES},
                       "instr_records": st["instr"]["records"], "dma_records": st["dma"]["records"],
                       "sem_records": st["sem"]["records"], "kind5_records": st["kind5"]["records"],
                       "dma_visible": len(cc["dma"]), "dma_before_origin": st["dma"]["dma_before_origin"],
                       "skipped": st["instr"]["skipped"] + st["dma"]["skipped"] + st["sem"]["skipped"]}
                want = {"rule": xc["origin_rule"], "visible": xc["visible"], "instr_records": xc["instr_records"],
                        "dma_records": xc["dma_records"], "sem_records": xc["sem_records"],
                        "kind5_records": xc["kind5_records"], "dma_visible": xc["dma_visible"],
                        "dma_before_origin": xc["dma_before_origin"], "skipped": 0}
                if got != want:
                    failures.append("%s: decoded %r, generator wrote %r" % (where, got, want))
                if rc["origin"]["rule"] != cc["origin"]["rule"]:
                    failures.append("%s: origin rule C %s Python %s" % (where, cc["origin"]["rule"],
                                                                        rc["origin"]["rule"]))
            print("v%d: %d bytes, %s" % (version, expected["file_bytes"], ", ".join(
                "%s %s %d instructions %d DMA" % (k["name"], k["origin"]["rule"], len(k["instructions"]), len(k["dma"]))
                for k in c["cores"])))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
