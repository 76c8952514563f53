"""ferry.templates.runtime_compare: how a frontend's output is judged against the reference, for
every library's runtime (runtime_onnx, runtime_torch, runtime_keras), which each turn their outputs
into numpy arrays and hand them here.

Like the runtimes, this module imports nothing of ferry, only numpy: a reproducer pastes it whole,
above its library's runtime (ferry.oracle.reproducer). Each runtime imports it in one
'if __name__ != "__main__":' statement, which the reproducer leaves out.
"""

import numpy as np

# Units in the last place allowed at half precision: a float16 or bfloat16 value passes when
# |got - want| <= max(atol + rtol * |want|, FERRY_HALF_ULPS * ulp(want)), ulp at the value's own
# precision (oracle/compare.h: COMPARE_HALF_ULPS is the same number, and the same rule).
FERRY_HALF_ULPS = 2
_FERRY_HALF = {"float16": (10, -14), "bfloat16": (7, -126)}  # mantissa bits, smallest normal exponent

# Operators whose output K (of N) is the indices of selected elements of their first input (oracle/
# compare.c's tie_ops, the same table): at a tie any of the equal elements is a right answer. Matched
# on the name's last component: torch.topk, torch.Tensor.topk, TopK, keras.ops.top_k.
FERRY_TIE_OPS = {"topk": (1, 2), "top_k": (1, 2), "TopK": (1, 2), "sort": (1, 2), "argsort": (0, 1),
                 "kthvalue": (1, 2), "mode": (1, 2), "max": (1, 2), "min": (1, 2), "median": (1, 2),
                 "nanmedian": (1, 2), "argmax": (0, 1), "argmin": (0, 1), "ArgMax": (0, 1), "ArgMin": (0, 1)}


def ferry_tie_output(op, k, n):
    """Whether output k of n of operator op is indices whose ties are no bug."""
    return FERRY_TIE_OPS.get(str(op).rsplit(".", 1)[-1]) == (k, n)


def ferry_untie(got, want, data):
    """got with each index that differs from want's but points at an element of data equal to the one
    want's points at (NaN equal to NaN) replaced by want's, and how many were; (got, 0) when they do
    not fit together as indices. The axis: one along which got's shape can come from data's (the same
    rank with one axis shortened, or one less); a single index is one into the flattened data."""
    g, w, d = np.asarray(got), np.asarray(want), np.asarray(data)
    if g.shape != w.shape or g.dtype != w.dtype or g.dtype.kind not in "iu" or d.size == 0 or \
            d.dtype.kind not in "biuf":
        return got, 0
    insert = g.ndim + 1 == d.ndim
    axes = []
    if g.ndim == d.ndim or insert:
        for a in range(d.ndim):
            rest = d.shape[:a] + d.shape[a + 1:]
            if insert and g.shape == rest or \
                    not insert and g.shape[:a] + g.shape[a + 1:] == rest and g.shape[a] <= d.shape[a]:
                axes.append(a)
    if not axes and g.size == 1:
        flat = d.reshape(-1)
        gi, wi = int(g.reshape(-1)[0]), int(w.reshape(-1)[0])
        if gi != wi and 0 <= gi < flat.size and 0 <= wi < flat.size and _ferry_same(flat[gi], flat[wi]):
            return w.copy(), 1
        return got, 0
    fixed, untied = g.copy(), np.zeros(g.shape, dtype=bool)
    for a in axes:
        gi, wi = (np.expand_dims(x, a) if insert else x for x in (g.astype(np.int64), w.astype(np.int64)))
        ok = (gi >= 0) & (gi < d.shape[a]) & (wi >= 0) & (wi < d.shape[a])
        at_g = np.take_along_axis(d, np.where(ok, gi, 0), axis=a)
        at_w = np.take_along_axis(d, np.where(ok, wi, 0), axis=a)
        tie = ok & _ferry_same(at_g, at_w)
        untied |= np.squeeze(tie, axis=a) if insert else tie
    untied &= g != w
    fixed[untied] = w[untied]
    return fixed, int(untied.sum())


def _ferry_same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f":
        return (a == b) | (np.isnan(a) & np.isnan(b))
    return a == b


def _ferry_half_ulp(want, precision):
    """One unit in the last place of each value of want at precision ("float16", "bfloat16")."""
    bits, emin = _FERRY_HALF[precision]
    with np.errstate(divide="ignore"):
        _, e2 = np.frexp(want)
    e = np.where(want == 0, emin, np.maximum(e2 - 1, emin))
    return np.ldexp(1.0, e - bits)


def ferry_compare_arrays(where, got, want, atol, rtol, random=False, shown=5, precision=None):
    """The problem with one output (None: none): its dtype and shape against the reference's, then,
    unless the operator is random, strings equal, NaN in the same places and
    |got - want| <= atol + rtol * |want| elsewhere (or FERRY_HALF_ULPS ulps at half precision: the
    arrays' own, or precision, the dtype they had before they were widened); with the first
    differing elements, got and want."""
    o, r = np.asarray(got), np.asarray(want)
    if precision not in _FERRY_HALF:
        precision = r.dtype.name if r.dtype.name in _FERRY_HALF and o.dtype == r.dtype else None
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
        if precision is not None:
            allowed = np.maximum(allowed, FERRY_HALF_ULPS * _ferry_half_ulp(b, precision))
        # equal (infinities of one sign included), or both finite and close; NaN where the reference has it
        good = (a == b) | (nan_a & nan_b) | (np.isfinite(a) & np.isfinite(b) & (diff <= allowed))
    if good.all():
        return None
    head = f"{where}: {int((~good).sum())} of {good.size} values differ"
    if not np.array_equal(nan_a, nan_b):
        head += f" (NaN in {int(nan_a.sum())} places, reference {int(nan_b.sum())})"
    return _ferry_first(head, ~good, a, b, diff, allowed, shown)


def ferry_align_vectors(op, outputs, reference):
    """outputs with an SVD's singular vectors aligned to the reference's. A singular vector is unique
    only up to its sign (a unit phase, when complex): for each of the first k vectors of U and of V
    (torch.svd: columns; torch.linalg.svd's Vh: rows; k the number of singular values), the frontend's
    is multiplied by the phase that best matches the reference's, so a flipped vector is agreement
    and any other difference stays. The vectors past k that a full basis adds (full_matrices) are any
    completion of it: the reference's stand in for them. Singular values are compared as they are;
    outputs unchanged for any other operator, or where the shapes already differ."""
    name = str(op)
    if name.rsplit(".", 1)[-1] != "svd" or len(outputs) != 3 or len(reference) != 3:
        return outputs
    outputs = list(outputs)
    k = np.asarray(reference[1]).shape[-1] if np.ndim(reference[1]) else 0
    for i, rows in ((0, False), (2, name.endswith("linalg.svd"))):
        g, w = np.asarray(outputs[i]), np.asarray(reference[i])
        if g.shape != w.shape or g.ndim < 2 or g.dtype != w.dtype or g.dtype.kind not in "fc":
            continue  # another shape or dtype is the oracle's to report as it is
        g = (np.swapaxes(g, -1, -2) if rows else g).copy()
        w = np.swapaxes(w, -1, -2) if rows else w
        dot = np.sum(np.conj(g[..., :k]) * w[..., :k], axis=-2)  # one per vector
        size = np.abs(dot)
        phase = np.where(size > 0, dot / np.where(size > 0, size, 1), 1)
        g[..., :k] *= phase[..., None, :] if np.iscomplexobj(g) else np.real(phase)[..., None, :]
        g[..., k:] = w[..., k:]
        outputs[i] = np.ascontiguousarray(np.swapaxes(g, -1, -2) if rows else g)
    return outputs


def ferry_untie_outputs(ties, outputs, reference):
    """outputs with the ties of an indices output resolved (ferry_untie) when ties = (op, data) names
    a tie operator (ferry_tie_output), and an SVD's vectors aligned (ferry_align_vectors); outputs
    unchanged otherwise."""
    if ties:
        outputs = ferry_align_vectors(ties[0], outputs, reference)
    if not ties or ties[1] is None:
        return outputs
    op, data = ties
    outputs = list(outputs)
    for k in range(len(outputs)):
        if ferry_tie_output(op, k, len(reference)):
            try:
                outputs[k], _ = ferry_untie(np.asarray(outputs[k]), np.asarray(reference[k]), np.asarray(data))
            except (TypeError, ValueError):  # not arrays of numbers: compared as they are
                pass
    return outputs


def _ferry_first(head, bad, got, want, diff, allowed, shown):
    """head, then a line per differing element, the first shown of them: index, got, want, |diff|, allowed."""
    lines = [head, f"    {'index':<16} {'got':>14} {'want':>14} {'|diff|':>12} {'allowed':>12}"]
    for index in list(zip(*np.nonzero(bad)))[:shown]:
        i = tuple(int(x) for x in index)
        extra = f" {float(diff[i]):>12.6g} {float(allowed[i]):>12.6g}" if diff is not None else ""
        lines.append(f"    {str(list(i)):<16} {str(got[i]):>14} {str(want[i]):>14}{extra}")
    return "\n".join(lines)
