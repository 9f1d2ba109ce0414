"""Set intersection: time and memory before the first request, by input size (issue 19).

    .venv/bin/python bench/sets_prompts.py [SIZES...]

GoT splits Set 2 into parts of 8 and sends each part with the whole of Set 1, so 50,000 +
50,000 numbers make 6,250 prompts of about 400 KB each. They used to be built all at once, each
rendering Set 1 again (70 s and 2.16 GB before the first request); now Set 1 is rendered once
and a prompt is built when its call gets a slot. Each size runs in a fresh process (for its
peak memory) with a model that stops the run at its first request; the ratio to the previous
size shows the growth (2.0x per doubling is linear, 4x quadratic). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import subprocess
import sys

ONE = """
import random, resource, sys, time
import thoughtgraph
import thoughtgraph.solving.solve
from thoughtgraph.errors import FatalModelError
n = int(sys.argv[1])
pool = random.Random(0).sample(range(10 * n), 2 * n)
problem = {"set1": pool[:n], "set2": pool[n // 2 : n // 2 + n]}
started, first = time.perf_counter(), []
async def model(prompt: str) -> str:
    first.append(time.perf_counter() - started)
    raise FatalModelError("stop at the first request")
try:
    thoughtgraph.solve("set-intersection", problem, model=model)
except FatalModelError:
    pass
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{first[0]:.3f} {peak:.0f}")
"""


def main() -> None:
    sizes = [int(s) for s in sys.argv[1:]] or [6_250, 12_500, 25_000, 50_000]
    print("set-intersection, got: |Set 1| = |Set 2|, seconds and peak MB to the first request")
    previous: tuple[float, float] | None = None
    for size in sizes:
        out = subprocess.run(
            [sys.executable, "-c", ONE, str(size)], capture_output=True, text=True, check=True
        ).stdout.split()
        seconds, peak = float(out[0]), float(out[1])
        ratio = (
            f"{seconds / previous[0]:4.1f}x time, {peak / previous[1]:4.1f}x memory"
            if previous
            else ""
        )
        print(f"  {size:>7,} + {size:<7,} {seconds:7.2f} s {peak:7.0f} MB  {ratio}")
        previous = (seconds, peak)


if __name__ == "__main__":
    main()
