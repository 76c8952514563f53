"""ferry.oracle.driver: what a ferry worker runs, once per test, inside its embedded interpreter.

A worker imports one frontend adapter and then serves many tests: for each, run() loads the test
directory that a template wrote (ferry/templates/onnx.py describes it: model, input_K.npy, ref_K.npy,
meta.json), hands it to the adapter stage by stage, and returns the frontend's outputs beside the
reference outputs for the C side to compare, or the crash with the stage it happened in.

The adapter interface. An adapter is a module ferry.oracle.adapters.<NAME with _ for -> (ferry's
own, oracle/adapters/) or a file adapter_<NAME>.py in a directory of FERRY_ADAPTERS (the user's,
loaded by its path, ahead of ferry's), with:

    NAME        the frontend's name in ferry ("ort")
    LIBRARY     the source library whose models it takes ("onnx"): a template's name
    FORMAT      the model format it takes ("onnx"): the test directory holds model.<FORMAT>
    PACKAGE     the Python package that is the frontend ("onnxruntime"); the innermost traceback frame
                inside it names the conversion function that failed, which groups crashes into bugs
    SUMMARY     optional: one line for 'ferry run --help'
    version()   the frontend's version string
    load(testdir)
                read (and, where the frontend parses separately, parse) testdir/model.<FORMAT>;
                returns whatever compile() takes                                    stage "load"
    compile(loaded)
                convert and compile the model for the CPU, single-threaded, with the frontend's
                default optimisations; returns whatever execute() takes             stage "compile"
    execute(compiled, inputs)
                run on inputs, a dict from graph input name to a numpy array (a list of arrays for
                a sequence input), in graph input order; returns the outputs in graph output order,
                each a numpy array (a list of them for a sequence output)          stage "execute"
    REPRODUCE   optional: the function a reproducer calls (ferry/oracle/reproducer.py), defined in
                the adapter's frontend module, a module a reproducer inlines whole (ferry's are
                oracle/adapters/_run_<NAME>.py). It takes the model (ONNX: the model's bytes;
                PyTorch: the eager torch.nn.Module, freshly built; Keras: the Keras model) and the
                inputs (ONNX: as for execute; PyTorch: a list of torch tensors; Keras: a list of
                numpy arrays) and returns the outputs as execute does. The frontend module imports
                only the standard library, numpy and the frontend, and the names it takes from ferry
                (its library's runtime, ferry/templates/runtime_<LIBRARY>.py, or another frontend
                module) in one statement 'if __name__ != "__main__":', which the reproducer leaves
                out, having pasted those modules above it
    BATCH       optional: True where the frontend may take several tests merged into one model
                (ferry run --batch K; ferry/oracle/batch.py), for a frontend whose batched
                outcomes were measured equal to its unbatched ones (bench/batch/run.sh)
The declarations are read without importing the adapter (ferry/oracle/registry.py: the frontend
list comes from them), and the whole interface is checked when a worker loads it.
An adapter whose frontend release cannot take the format at all (no model of it, not this one: a
release without an ExportedProgram path, say) raises FormatUnavailable from any stage; the run then
reports the frontend once as unavailable for the format, records it in the store, and leaves its
tests to a later run (with another release).
Any other exception from a stage is a crash in that stage, SystemExit (sys.exit) and KeyboardInterrupt
included: a frontend that tries to end the worker has crashed in that stage, and the worker lives on.
Except ferry's own failures, which are never the frontend's bugs (outcome "error", retried when the run
is run again): an exception whose message begins "ferry: " (how a template or adapter says that ferry
could not make what the frontend takes, e.g. templates/torch.py's NotSerialized, "ferry: PyTorch could
not make the export model: ..."; its stage is "wrap": what the template recorded at wrap, the same on
every run), and a missing file of the test directory (FileNotFoundError naming a path inside it). An
exception outside the stages (an unreadable meta.json or input) is ferry's too. Messages meaning "the
frontend does not support this" are told apart by the C side with the patterns in
oracle/unsupported/<NAME>.txt.
"""

import importlib
import importlib.util
import json
import os
import re
import sys
import traceback

import numpy as np

from ferry.extract import values as ferry_values
from ferry.oracle import registry
from ferry.templates import _files, runtime_compare

# The package directory of each adapter's PACKAGE, looked up once per process.
_package_dirs = {}


try:
    import _ferry  # the C side's module: stage() tells the runner where a test is when its worker dies,
    _words = _ferry  # and the protocol's words (pool/protocol.h)
except ImportError:  # the driver used outside ferry (bench/runner/floor.py): the same words, for itself
    _ferry = None
    _words = type("_words", (), {"VERDICT_OK": "ok", "VERDICT_MISMATCH": "mismatch", "VERDICT_CRASH": "crash",
                                 "VERDICT_ERROR": "error", "VERDICT_UNAVAILABLE": "unavailable",
                                 "STAGE_LOAD": "load", "STAGE_COMPILE": "compile",
                                 "STAGE_EXECUTE": "execute", "STAGE_WRAP": "wrap"})


class FormatUnavailable(Exception):
    """Raised by an adapter when this release of its frontend cannot take the adapter's FORMAT at all
    (every test would fail the same way before the frontend sees the model): its message says why."""


def _stage(name):
    if _ferry is not None:
        _ferry.stage(name)


def load_adapter(name):
    """The adapter of frontend name: the user's adapter_<name>.py from a directory of FERRY_ADAPTERS
    (which come first), else ferry's own module; an import error propagates (the frontend is
    missing). A user's file is loaded by its path, as module ferry_user_adapter_<name> (with '_' for
    '-'), so its name may keep the frontend's hyphen; it imports ferry's modules by their full names
    (from ferry.oracle.adapters import ort). Where the store being read was run with the user's adapter
    of name and FERRY_ADAPTERS holds none, ferry's own of that name does not stand in for it."""
    path = registry.user_adapter_path(name)
    if path is None:
        if not registry.own_adapter(name) or registry.store_user_adapter(name):
            raise registry.missing(name)
        adapter = importlib.import_module(registry.module_name(name))
        path = adapter.__file__
    else:
        safe = "ferry_user_adapter_" + name.replace("-", "_")
        adapter = sys.modules.get(safe)
        # loaded once per process, as an import is: report asks again for each of its reproducers
        if adapter is None or getattr(adapter, "__file__", None) != path:
            spec = importlib.util.spec_from_file_location(safe, path)
            adapter = importlib.util.module_from_spec(spec)
            sys.modules[safe] = adapter  # as import would: a module that imports itself finds it
            try:
                spec.loader.exec_module(adapter)
            except BaseException:
                del sys.modules[safe]
                raise
    registry.check(adapter, path)
    if adapter.NAME != name:
        raise registry.AdapterError(f"adapter '{path}' declares NAME = {adapter.NAME!r}, not {name!r}")
    _package_dirs[adapter.PACKAGE] = _package_dir(adapter.PACKAGE)
    return adapter


def _package_dir(package):
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    return os.path.realpath(locations[0]) if locations else None


def random(testdir):
    """Whether the template found the test's operator random (its outputs vary from run to run)."""
    return bool(_meta(testdir).get("random", False))


def _meta(testdir):
    return json.loads(_slurp(os.path.join(testdir, "meta.json")))


def _slurp(path):
    """A file's bytes, read with the fewest calls: a test's files are small and read once per test,
    where io.open's layers and np.load's header parsing cost more than the frontend's run of a small
    model (ORT takes about 0.3 ms)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        size = os.fstat(fd).st_size
        data = os.read(fd, size + 1)
        if len(data) > size:  # it grew while read: the rest too
            data += b"".join(iter(lambda: os.read(fd, 1 << 20), b""))
        return data
    finally:
        os.close(fd)


# The header that numpy's own np.save writes (format 1.0 or 2.0, C order) for a dtype given by a
# plain type string ('<f4', '|b1', '<U7'); anything else goes through np.load.
_NPY_HEADER = re.compile(r"\{'descr': '([<>|=][a-zA-Z]\d*)', 'fortran_order': False, 'shape': \(((?:\d+, ?)*\d*)\), \}"
                         r" *\n\Z")
_npy_dtypes = {}


def load_npy(path):
    """np.load(path, allow_pickle=False), in a quarter of its time for the files np.save writes: the
    header is matched, not evaluated, and the array owns a writable copy of the data. A file of any
    other shape (a header written by another tool, Fortran order, a structured dtype, a short file)
    is np.load's, with its errors."""
    data = _slurp(path)
    if data[:6] == b"\x93NUMPY" and data[6] in (1, 2) and len(data) >= 12:
        start = 10 if data[6] == 1 else 12
        end = start + int.from_bytes(data[8:start], "little")
        m = _NPY_HEADER.match(data[start:end].decode("latin-1"))
        if m:
            dtype = _npy_dtypes.get(m.group(1))
            if dtype is None:
                dtype = _npy_dtypes[m.group(1)] = np.dtype(m.group(1))
            shape = tuple(int(d) for d in m.group(2).split(",") if d.strip())
            count = 1
            for d in shape:
                count *= d
            if dtype.kind != "O" and len(data) - end == count * dtype.itemsize:
                return np.frombuffer(data, dtype, offset=end).reshape(shape).copy()
    return np.load(path, allow_pickle=False)


def run(adapter, testdir):
    """Run one test through the adapter. Returns one of
        ("ok", outputs, refs, context)
                                    lists of C-contiguous numpy arrays, one per tensor output and one
                                    per element of a sequence output, in the same order, each of a
                                    dtype the buffer protocol can express (see _comparable); context
                                    {"op", "data", "dtypes"}: the operator's name, its first input (None
                                    unless a numeric array) and the real dtype of each output
        ("unavailable", why)        the adapter raised FormatUnavailable: why is "FORMAT: message"
        ("mismatch", message)       outputs that cannot be put side by side with the references (a
                                    different count, a sequence of another length, another dtype
                                    where the stored references had to be converted, strings of
                                    another shape); a wrong result like any other
        ("crash", stage, exc_type_name, message, traceback_text, frame)
                                    an exception in stage "load", "compile" or "execute"; frame is
                                    "file:function" of the innermost traceback frame inside the
                                    adapter's PACKAGE (file relative to the package's parent
                                    directory), else of the innermost frame (file's base name)."""
    meta = _meta(testdir)
    inputs = test_inputs(testdir, meta)
    outputs = run_stages(adapter, testdir, inputs)
    return judge(testdir, meta, inputs, outputs) if isinstance(outputs, list) else outputs


def run_stages(adapter, testdir, inputs, load=None):
    """The adapter's stages on the model of testdir and inputs: the outputs (a list), or run()'s
    verdict of a failure (unavailable, crash, error). ferry.oracle.batch runs a merged model so, its
    load stage the call load() when given."""
    stage = _words.STAGE_LOAD
    try:
        _stage(stage)
        loaded = load() if load is not None else adapter.load(testdir)
        stage = _words.STAGE_COMPILE
        _stage(stage)
        compiled = adapter.compile(loaded)
        stage = _words.STAGE_EXECUTE
        _stage(stage)
        outputs = adapter.execute(compiled, inputs)
        # the frontend's time ends here, its models' teardown included (a TVM module or an
        # OpenVINO compiled model frees itself when released): reading the references and
        # comparing are ferry's
        del loaded, compiled
        _stage("")
    except FormatUnavailable as e:
        return (_words.VERDICT_UNAVAILABLE, f"{adapter.FORMAT}: {e}")
    except BaseException as e:  # anything from the frontend, sys.exit too, is the crash oracle's to judge
        verdict = _crash(adapter, stage, e)
        ferrys = _ferrys(e, testdir)
        if ferrys == "wrap":  # the template said at wrap that it could not make this format
            return (_words.VERDICT_ERROR, _words.STAGE_WRAP) + verdict[2:]
        if ferrys:
            return (_words.VERDICT_ERROR,) + verdict[1:]
        return verdict
    return list(outputs)


def judge(testdir, meta, inputs, outputs):
    """run()'s verdict of the frontend's outputs (a list) of the test in testdir: put beside its
    references, or a mismatch where they cannot be."""
    refs = [_read(testdir, entry, as_input=False) for entry in meta["outputs"]]
    verdict = _pair(list(outputs), refs, meta["outputs"])
    if verdict[0] != _words.VERDICT_OK:
        return verdict
    # an SVD's singular vectors are unique only up to their signs: aligned first, as a reproducer does
    verdict = (verdict[0], runtime_compare.ferry_align_vectors(meta.get("op", ""), verdict[1], verdict[2]),
               verdict[2])
    # what the value oracle needs beyond the arrays (oracle/compare.h): the operator, whose indices
    # outputs may differ at ties, its data input (the first), and each output's real dtype, whose
    # ulps are allowed where it is half precision even when stored wider
    first = next(iter(inputs.values()), None) if inputs else None
    data = np.ascontiguousarray(first) if isinstance(first, np.ndarray) and first.dtype.kind in "biuf" else None
    flat = [entry["dtype"] for entry, out in zip(meta["outputs"], refs)
            for _ in (out if entry["kind"] == "sequence" else [out])]
    return verdict + ({"op": str(meta.get("op", "")), "data": data, "dtypes": flat},)


def save_outputs(outputs, outdir):
    """Keep a frontend's outputs (the flat list run() returned, as compared) for the differential
    oracle: outdir/out_K.npy, then outdir/outputs.json with their count, last, so that a directory
    without it is no set of outputs. outdir is STORE.outputs/LABEL/ID (oracle/session/pairs.c): those three
    are ferry's, beside the user's store, and nothing is written through a link planted there."""
    os.close(_files.open_dir(outdir, 3))
    for k, out in enumerate(outputs):
        with _files.create(os.path.join(outdir, f"out_{k}.npy")) as f:
            np.save(f, np.asarray(out), allow_pickle=False)
    with _files.create(os.path.join(outdir, "outputs.json"), "w") as f:
        json.dump({"outputs": len(outputs)}, f)


def load_outputs(outdir):
    """Another frontend's outputs of the same test, as save_outputs() kept them."""
    with open(os.path.join(outdir, "outputs.json")) as f:
        n = json.load(f)["outputs"]
    return [np.load(os.path.join(outdir, f"out_{k}.npy"), allow_pickle=False) for k in range(n)]


def test_inputs(testdir, meta=None):
    """The test's inputs as execute() gets them: graph input name -> array in its real dtype (a dtype
    numpy stores in a wider one converted back), in graph input order. For an adapter whose compile
    stage needs them (a tracing compiler compiles on its first call)."""
    meta = meta if meta is not None else _meta(testdir)
    return {entry["name"]: _read(testdir, entry, as_input=True) for entry in meta["inputs"]}


def _read(testdir, entry, as_input):
    """An input (in its real dtype, ready for the frontend) or a reference (as stored) from its files."""
    arrays = [load_npy(os.path.join(testdir, f)) for f in entry["files"]]
    if as_input and "stored" in entry:
        real = _dtype(entry["dtype"])
        if real is not None:  # else no numpy type holds it (complex32): the adapter converts
            arrays = [a.astype(real) for a in arrays]
    return arrays if entry["kind"] == "sequence" else arrays[0]


def _dtype(name):
    """The numpy dtype of a meta.json dtype name, or None for a name that is none."""
    try:
        return ferry_values.dtype_from_name(str(name))
    except (TypeError, ValueError):
        return None


def _pair(outputs, refs, entries):
    if len(outputs) != len(refs):
        return (_words.VERDICT_MISMATCH, f"{len(outputs)} outputs, the reference has {len(refs)}")
    flat_out, flat_ref = [], []
    for k, (out, ref, entry) in enumerate(zip(outputs, refs, entries)):
        if entry["kind"] == "sequence":
            if not isinstance(out, (list, tuple)) or len(out) != len(ref):
                got = f"{len(out)} elements" if isinstance(out, (list, tuple)) else type(out).__name__
                return (_words.VERDICT_MISMATCH, f"output {k}: a sequence of {len(ref)} expected, got {got}")
            pairs = [(f"output {k}[{j}]", o, r) for j, (o, r) in enumerate(zip(out, ref))]
        else:
            pairs = [(f"output {k}", out, ref)]
        for where, o, r in pairs:
            converted = _comparable(where, np.asarray(o), r, entry)
            if isinstance(converted, str):
                return (_words.VERDICT_MISMATCH, converted)
            flat_out.append(np.ascontiguousarray(converted[0]))
            flat_ref.append(np.ascontiguousarray(converted[1]))
    return (_words.VERDICT_OK, flat_out, flat_ref)


def _comparable(where, out, ref, entry):
    """(out, ref) in dtypes the C side can read through the buffer protocol, or a mismatch message.

    Most outputs pass unchanged: C compares dtype, shape and values. A reference stored in a wider
    dtype (bfloat16, float8, int4, ... as float32, int8, uint8) is compared with the output converted
    the same way, after the real dtypes are checked here, where they are still known. Strings are
    compared here: the output becomes a bool array of matches, the reference all True. Complex
    values are compared as pairs of reals."""
    if entry["dtype"] == "string":
        if out.dtype.kind not in "OUS":
            return f"{where}: {out.dtype} where the reference has strings"
        if out.shape != ref.shape:
            return f"{where}: shape {list(out.shape)}, reference {list(ref.shape)}"
        return out.astype(str) == ref, np.ones(ref.shape, dtype=bool)
    if "stored" in entry:
        real = _dtype(entry["dtype"])
        if out.dtype != (real if real is not None else ref.dtype):
            return f"{where}: dtype {out.dtype}, reference {entry['dtype']}"
        out = out.astype(ref.dtype)
    elif out.dtype != ref.dtype and out.dtype.kind not in "biufc":
        # a type the C side cannot read (ml_dtypes' bfloat16, ...) where the reference has another
        return f"{where}: dtype {out.dtype}, reference {entry['dtype']}"
    if out.dtype.kind == "c" or ref.dtype.kind == "c":
        # the C side has no complex types: real and imaginary parts side by side in a last axis
        if out.dtype != ref.dtype:
            return f"{where}: dtype {out.dtype}, reference {ref.dtype}"
        if out.shape != ref.shape:
            return f"{where}: shape {list(out.shape)}, reference {list(ref.shape)}"
        return np.stack([out.real, out.imag], axis=-1), np.stack([ref.real, ref.imag], axis=-1)
    return out, ref


def _ferrys(e, testdir):
    """Whether the exception is ferry's own failure, not the frontend's (see the module's doc): "wrap"
    when the template could not make the model in this frontend's format (its "ferry: " message, from
    what it recorded at wrap: the same every time), True for another failure of ferry's, else False.
    The message alone decides nothing: a frontend's exception that happens to begin "ferry: " is still
    the frontend's crash; only one raised by ferry's own templates (their NotSerialized) is ferry's."""
    try:
        if type(e).__module__.startswith("ferry.templates.") and str(e).startswith("ferry: "):
            return "wrap"
    except Exception:  # an exception whose str() itself fails is the frontend's
        return False
    if isinstance(e, FileNotFoundError) and e.filename is not None:
        top = os.path.realpath(testdir)
        path = os.path.realpath(os.path.join(testdir, os.fsdecode(e.filename)))
        return path == top or path.startswith(top + os.sep)
    return False


def _crash(adapter, stage, e):
    frames = traceback.extract_tb(e.__traceback__)
    package_dir = _package_dirs.get(adapter.PACKAGE)
    frame = None
    if package_dir is not None:
        for f in reversed(frames):
            path = os.path.realpath(f.filename)
            if path.startswith(package_dir + os.sep):
                frame = f"{os.path.relpath(path, os.path.dirname(package_dir))}:{f.name}"
                break
    if frame is None and frames:
        frame = f"{os.path.basename(frames[-1].filename)}:{frames[-1].name}"
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    message = str(e)
    if isinstance(e, SystemExit):  # str() is only the exit code: say what happened
        message = f"SystemExit: the frontend called sys.exit({e.code!r})"
    return (_words.VERDICT_CRASH, stage, type(e).__name__, message, text, frame or "")
