"""ferry.templates._nan: what every template says alike of a reference it computed that lies in
the undefined domain: NaN everywhere (NAN_EVERYWHERE), where no frontend's values can be judged.
Each template picks its floating and complex outputs (its library's types); a variant (ferry vary) is
judged again on the inputs wrap made."""

import numpy as np

NAN_EVERYWHERE = "the reference is NaN everywhere"


def everywhere(arrays):
    """NAN_EVERYWHERE where every element of every array (numpy, floating or complex) is NaN (one
    element at least), else None."""
    if not sum(a.size for a in arrays):
        return None
    for a in arrays:
        if a.size and not np.isnan(a.astype(np.complex128)).all():
            return None
    return NAN_EVERYWHERE


def variant_undefined(record, refs, nan_everywhere):
    """For a variant (ferry vary), nan_everywhere(refs) (the template's: NAN_EVERYWHERE where wrap's
    own reference is NaN everywhere), else None. Decided again here, on the inputs wrap made: ferry
    vary validated the candidate before its id (which seeds generated inputs) was final, so its
    verdict may be about other values."""
    if not isinstance(record.get("variant"), dict):
        return None
    return nan_everywhere(refs)
