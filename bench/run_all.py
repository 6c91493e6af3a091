"""Run every bench/*_bench.py in turn (what `make bench` does); exit non-zero if any of them failed."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(BENCH.glob("*_bench.py"))
    if not scripts:
        print(f"run_all: no *_bench.py in {BENCH}", file=sys.stderr)
        return 1
    failed = []
    for script in scripts:
        print(f"=== {script.name}", flush=True)
        started = time.monotonic()
        code = subprocess.call([sys.executable, str(script)], cwd=BENCH.parent)
        print(f"=== {script.name}: exit {code} after {time.monotonic() - started:.0f} s\n", flush=True)
        if code != 0:
            failed.append(script.name)
    if failed:
        print(f"run_all: failed or missed a target: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"run_all: {len(scripts)} benchmark(s) passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
