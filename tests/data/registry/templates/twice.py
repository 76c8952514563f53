"""The template of "twice" (see extract/harvest_twice.py): its one operator doubles a tensor."""

import json
import os

import numpy as np

from ferry.extract import values as ferry_values

LIBRARY = "twice"
DTYPES = ("float32", "int32")
TOLERANCES = ""
VERSIONS = ("twice",)
COUNT_ROOTS = ("twice",)
RUNTIME = "runtime_twice"
EXPORT = "template"

ATOL = 1e-3
RTOL = 1e-3


def _reference(record):
    x = ferry_values.tensor_array(record["inputs"][0]["tensor"])
    return x, x * 2


def _entry(name, prefix, array):
    return {"name": name, "kind": "tensor", "dtype": ferry_values.dtype_name(array.dtype), "files": [f"{prefix}_0.npy"]}


def wrap(record_json, outdir):
    record = json.loads(record_json)
    record.pop("wrap_options", None)
    x, ref = _reference(record)
    os.makedirs(outdir, exist_ok=True)
    np.save(os.path.join(outdir, "input_0.npy"), x)
    np.save(os.path.join(outdir, "ref_0.npy"), ref)
    meta = {"id": record.get("id"), "op": record["op"], "kind": record["kind"], "random": False,
            "inputs": [_entry("x", "input", x)], "outputs": [_entry("y", "ref", ref)]}
    with open(os.path.join(outdir, "record.json"), "w") as f:
        json.dump(record, f)
    with open(os.path.join(outdir, "meta.json"), "w") as f:
        json.dump(meta, f)
    return {"status": "ok", "random": False, "ninputs": 1, "noutputs": 1}


def validate(record_json):
    _, ref = _reference(json.loads(record_json))
    return {"status": "ok", "outputs": json.dumps([ferry_values.tensor(ref, keep=False)])}
