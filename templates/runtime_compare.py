"""ferry.templates.runtime_compare: how a frontend's output is judged against the reference, for
every library's runtime (runtime_onnx, runtime_torch, runtime_keras), which each turn their outputs
into numpy arrays and hand them here.

Like the runtimes, this module imports nothing of ferry, only numpy: a reproducer pastes it whole,
above its library's runtime (ferry.oracle.reproducer). Each runtime imports it in one
'if __name__ != "__main__":' statement, which the reproducer leaves out.
"""

import numpy as np


def ferry_compare_arrays(where, got, want, atol, rtol, random=False, shown=5):
    """The problem with one output (None: none): its dtype and shape against the reference's, then,
    unless the operator is random, strings equal, NaN in the same places and
    |got - want| <= atol + rtol * |want| elsewhere; with the first differing elements, got and want."""
    o, r = np.asarray(got), np.asarray(want)
    strings = o.dtype.kind in "OUS" and r.dtype.kind in "OUS"  # any of numpy's string dtypes
    if (o.dtype != r.dtype and not strings) or o.shape != r.shape:
        return f"{where}: {o.dtype}{list(o.shape)}, reference {r.dtype}{list(r.shape)}"
    if random:
        return None
    if strings:
        bad = o.astype(str) != r.astype(str)
        head = f"{where}: {int(bad.sum())} strings differ"
        return _ferry_first(head, bad, o, r, None, None, shown) if bad.any() else None
    if o.dtype.kind == "c":
        o, r = np.stack([o.real, o.imag], axis=-1), np.stack([r.real, r.imag], axis=-1)
    a, b = o.astype(np.float64), r.astype(np.float64)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    with np.errstate(invalid="ignore", over="ignore"):
        diff, allowed = np.abs(a - b), atol + rtol * np.abs(b)
        # equal (infinities of one sign included), or both finite and close; NaN where the reference has it
        good = (a == b) | (nan_a & nan_b) | (np.isfinite(a) & np.isfinite(b) & (diff <= allowed))
    if good.all():
        return None
    head = f"{where}: {int((~good).sum())} of {good.size} values differ"
    if not np.array_equal(nan_a, nan_b):
        head += f" (NaN in {int(nan_a.sum())} places, reference {int(nan_b.sum())})"
    return _ferry_first(head, ~good, a, b, diff, allowed, shown)


def _ferry_first(head, bad, got, want, diff, allowed, shown):
    """head, then a line per differing element, the first shown of them: index, got, want, |diff|, allowed."""
    lines = [head, f"    {'index':<16} {'got':>14} {'want':>14} {'|diff|':>12} {'allowed':>12}"]
    for index in list(zip(*np.nonzero(bad)))[:shown]:
        i = tuple(int(x) for x in index)
        extra = f" {float(diff[i]):>12.6g} {float(allowed[i]):>12.6g}" if diff is not None else ""
        lines.append(f"    {str(list(i)):<16} {str(got[i]):>14} {str(want[i]):>14}{extra}")
    return "\n".join(lines)
