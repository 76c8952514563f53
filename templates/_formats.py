"""ferry.templates._formats: the model formats a wrap makes, and those it left for later.

ferry wrap --frontend F,G makes only the formats those frontends read (their adapters' FORMAT): it
passes them in the record it sends to the template, as wrap_options {"formats": [...]}, and a
template makes nothing else. A format not made is absent from meta.json (neither its file's key nor
its "_error" key), which is how it differs from one the library could not make (the key null, the
error saying why). A later ferry run with a frontend that reads an absent format makes it then, in
that frontend's worker, from record.json (make_later): the same module or model, built the same
seeded way, so the file is the one wrap would have made. Two workers of two frontends may want the
same test directory at once: the making is done under a lock on the directory, and meta.json is
replaced whole (a reader sees the old one or the new one, never half of one), without following a
link planted in the test directory (ferry/templates/_files.py). A file made but
found unusable when a frontend reads it (a PyTorch ExportedProgram that does not load back) is marked
so the same way (update).
"""

import fcntl
import json
import os
import warnings

from ferry.templates import _files


def requested(record):
    """The formats ferry wrap asked for (a set of FORMAT names), or None for all of them; the
    option is taken out of record's wrap_options (the rest is the template's to read)."""
    options = record.get("wrap_options")
    if not isinstance(options, dict) or "formats" not in options:
        return None
    formats = options.pop("formats")
    if not options:
        del record["wrap_options"]
    if not isinstance(formats, list) or not all(isinstance(f, str) for f in formats):
        raise ValueError(f"wrap option formats must be a list of names, not {formats!r}")
    return set(formats)


def wanted(formats, *names):
    """Whether a template makes a file that any of the FORMAT names read."""
    return formats is None or any(n in formats for n in names)


def left(meta, which):
    """Whether the meta.json of a test directory left the file which (a template's key: "torchscript",
    "export", "saved_model", "tflite") to be made later: neither it nor its error is there."""
    return which not in meta and f"{which}_error" not in meta


def make_later(testdir, which, make):
    """meta.json of testdir once the file which is there or known to be impossible: where wrap left
    it, make(meta, record) fills meta in (the file's key, or the key null and "<which>_error") and
    writes the file, with record the instance as wrap saved it (record.json) and the library's
    warnings silenced as at wrap, under the directory's lock, and meta.json is replaced. Returns the
    meta it read or made."""
    def from_record(meta):
        with open(os.path.join(testdir, "record.json")) as f:
            record = json.load(f)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            make(meta, record)
    return _locked(testdir, lambda meta: left(meta, which), from_record)


def update(testdir, which, change):
    """meta.json of testdir once change(meta) has changed what it says of the file which, under the
    directory's lock (a frontend's worker that found the file made but unusable: the key null and
    "<which>_error"), unless another worker already said the file is missing. Returns the meta."""
    return _locked(testdir, lambda meta: bool(meta.get(which)), change)


def _locked(testdir, needed, change):
    """Under testdir's lock: meta.json read, and where needed(meta), changed by change(meta) and
    replaced whole. Returns the meta read or changed."""
    # WRAP/tests/XX/ID (lib/wrapped.c): those three are ferry's, and a link planted there is refused
    fd = _files.open_dir(testdir, 3, make=False)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another frontend's worker may be making the same file
        path = os.path.join(testdir, "meta.json")
        with open(path) as f:
            meta = json.load(f)
        if needed(meta):
            change(meta)
            _files.replace(path, json.dumps(meta, indent=1))
        return meta
    finally:
        os.close(fd)  # and with it the lock
