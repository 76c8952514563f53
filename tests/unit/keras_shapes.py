"""Unit tests of the Keras template's resolution of unknown dimensions (templates/keras.py _resolve):
the inputs' None dimensions are resolved together, not one by one. Prints TAP; run by
tests/unit/test-keras-shapes.sh."""

import sys
import warnings

warnings.simplefilter("ignore")

from ferry.templates import keras as template_keras  # noqa: E402

B, U = template_keras.BATCH, template_keras.UNKNOWN
cases = [
    ([[None, 3], [2, None]], [[2, 3], [2, 3]], "the issue's example: (None, 3) with (2, None) broadcast"),
    ([[None, 3], [None, 3]], [[B, 3], [B, 3]], "an unknown batch nobody knows is BATCH for every input"),
    ([[None, None, 8]], [[B, U, 8]], "one input: BATCH for the batch, UNKNOWN elsewhere"),
    ([[None, None, 4], [None, 5, 4]], [[B, 5, 4], [B, 5, 4]], "a size another input has at the same position"),
    ([[None, None, 4], [4]], [[B, U, 4], [4]], "a lower-rank input ties only its own positions"),
    ([[None, 1, 3], [None, 6, 3], [None, None, 3]], [[B, 1, 3], [B, 6, 3], [B, 6, 3]],
     "the largest size where one of them is 1 (it broadcasts to it)"),
    ([[7, None], [None, None, 2]], [[7, 2], [7, 7, 2]],
     "positions are counted from the right; the batch is the one another input has"),
    ([[3, None, None], [None, 2]], [[3, U, 2], [3, 2]], "a batch another input knows, and a size from the right"),
    ([], [], "no input"),
]
results = []
for shapes, want, name in cases:
    got = template_keras._resolve(shapes)
    results.append((got == want, name))
    if got != want:
        results.append((True, f"# got {got!r}\n# want {want!r}"))
print(f"1..{sum(1 for good, name in results if not name.startswith('#'))}")
n = 0
for good, name in results:
    if name.startswith("#"):
        print(name)
        continue
    n += 1
    print(f"{'ok' if good else 'not ok'} {n} - {name}")
sys.exit(0 if all(good for good, _ in results) else 1)
