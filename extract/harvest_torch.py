"""harvest_torch: the operator instances of PyTorch's test knowledge, recorded by instrument_torch.

Suites (source.suite of each record):
    opinfo   the OpInfo database (common_methods_invocations.op_db): every sample input of every
             operator on the CPU, for each dtype the operator supports there, called through its
             function, method and in-place variants
    modules  the ModuleInfo database (common_modules.module_db): every module input of every module,
             for each dtype it supports, in training and in eval mode
    nn       common_nn's module and criterion tests (module_tests, get_new_module_tests(),
             criterion_tests): the module built as the test builds it, called on the test's input
    pytest   test files or directories (a checkout of PyTorch's test/, a user's own tests), run by
             pytest in this process; a test that fails or errors is counted and the run goes on
             (ferry harvest runs this process as a child of its own, in a scratch directory and a
             sandbox: a test that exits, crashes or hangs is counted there, and a new child goes on)

The shipped suites run each operator call under the recorder and nothing else; pytest runs whole
tests, and the recorder's call-site rule keeps what the tests call apart from what PyTorch calls for
them. The random generator is seeded before each case, so a harvest is the same run after run.
The C side calls harvest() (through channel); records go back through ferry.emit as JSON text,
problems through ferry.skip(reason, where), progress through ferry.progress(done, total, label), and
each test (an OpInfo entry, a ModuleInfo entry, a common_nn test, a pytest item) is numbered, and
skipped when an earlier process did it, through channel.begin and finish; the samples of an OpInfo
or ModuleInfo entry are numbered within it (every dtype's in turn, as enumerated), so that one that
hangs or crashes costs itself only: the next process runs the entry again from the sample after it.
"""

import contextlib
import fnmatch
import inspect
import os
import warnings

import torch

from ferry.extract import harvest_common, instrument_torch

SUITES = ("opinfo", "modules", "nn")
FILTER_OPS = True  # the registry's (ferry/templates/registry.py): --op and --test prune the tests
PROGRESS_EVERY = 20


def harvest(ferry, patterns, suites=None, pytest=None, instrument=True):
    """Emit the instances of the given suites (all shipped ones when neither suites nor pytest is
    given) and of the pytest paths. patterns (fnmatch) keep the records whose op or test matches one
    of them (all when empty); they also pass over the OpInfo and module entries that cannot match.
    Returns counts: {"tests": cases run, ...}. instrument=False runs the same cases without the
    instrumentation, recording nothing (bench/torch measures the instrumentation's cost so)."""
    suites = harvest_common.suites("torch", SUITES, suites, pytest)
    h = _Harvest(ferry, patterns, PROGRESS_EVERY, failures=[harvest_common.PYTEST_FAILED] if pytest else [])
    recorder_class = instrument_torch.Recorder if instrument else instrument_torch.Bare
    with warnings.catch_warnings(), recorder_class(h.emit) as recorder:
        warnings.simplefilter("ignore")
        h.recorder = recorder
        for suite in suites or ():
            torch.manual_seed(0)
            with _default_dtype(torch.float32):
                {"opinfo": _opinfo, "modules": _modules, "nn": _nn}[suite](h)
        for path in pytest or ():
            h.pytest(path, lambda: torch.manual_seed(0))
        h.check()
    return h.counts()


class _Harvest(harvest_common.Harvest):
    def wanted_case(self, *names):
        """Whether an OpInfo or module entry may yield a wanted record: a pattern matches one of the
        names its records will carry, or the part before the first ":" of a pattern of test names
        ("add:float32:*") matches its own."""
        return self.wanted(*names) or any(":" in p and fnmatch.fnmatchcase(n, p.split(":", 1)[0])
                                          for n in names for p in self.patterns)

    def call(self, source, fn, args, kwargs):
        """Call fn under the recorder with source as provenance; True if it returned."""
        self.recorder.source = source
        with self.recorder.recording():
            try:
                fn(*args, **kwargs)
                returned = True
            except Exception:  # an operator that rejects its sample is not recorded; the run goes on
                returned = False
        self.check()
        return returned


@contextlib.contextmanager
def _default_dtype(dtype):
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def _where(fn):
    """(file relative to torch's parent, line) where a function is defined, or None."""
    while hasattr(fn, "func"):  # functools.partial
        fn = fn.func
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    path = os.path.abspath(code.co_filename)
    parent = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    if path.startswith(parent + os.sep):
        path = os.path.relpath(path, parent)
    return path, code.co_firstlineno


def _source(suite, test, where):
    source = {"suite": suite, "test": test}
    if where is not None:
        source["file"] = where[0]
        if where[1] is not None:
            source["line"] = where[1]
    return source


def _dtype_name(dtype):
    return instrument_torch.dtype_name(dtype)


def _clone(value):
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    return value


# --- OpInfo ---------------------------------------------------------------------------------------------

def _opinfo_names(op):
    """The names a pattern may use for an OpInfo entry: its own, and the ones records will carry."""
    base = op.name
    full = f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name
    names = {full, "torch." + base, "torch.Tensor." + base.split(".")[-1], "torch.Tensor." + base.split(".")[-1] + "_"}
    alias = instrument_torch.alias_of("torch." + base)
    return names | {alias} if alias else names


def _extra_op_db():
    """The OpInfo entries of the modules $FERRY_TORCH_OPINFO names (comma-separated, importable):
    each module's op_db, after PyTorch's (an extension's operators, or a test's own)."""
    import importlib
    return [op for name in os.environ.get("FERRY_TORCH_OPINFO", "").split(",") if name.strip()
            for op in importlib.import_module(name.strip()).op_db]


def _opinfo(h):
    from torch.testing._internal.common_methods_invocations import op_db

    ops = [op for op in [*op_db, *_extra_op_db()] if h.wanted_case(*_opinfo_names(op))]
    h.recorder.allow_tensorless = True  # creation operators (zeros, arange, ...) are operators here
    try:
        for done, op in enumerate(ops, 1):
            if h.begin(f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name):
                _opinfo_op(h, op)
                h.finish()
            h.progress(done, len(ops), "opinfo")
    finally:
        h.recorder.allow_tensorless = False


def _opinfo_op(h, op):
    full = f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name
    where = _where(op.sample_inputs_func)
    variants = [("", op.op), ("method", op.method_variant), ("inplace", op.inplace_variant)]
    n = 0  # the entry's samples so far, every dtype's
    for dtype in sorted(op.supported_dtypes("cpu"), key=str):
        torch.manual_seed(0)
        name = f"{full}:{_dtype_name(dtype)}"
        try:
            samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))
        except Exception as e:  # a generator that fails on this build: the rest goes on
            if not h.done_before(n):
                h.ferry.skip(f"OpInfo samples failed: {type(e).__name__}", name)
            continue
        for k, sample in enumerate(samples):
            n += 1
            if not h.sample(n - 1, f"{name}:{k}"):
                continue
            h.tests += 1
            for variant, fn in variants:
                if fn is None:
                    continue
                args = (sample.input, *sample.args)
                if variant == "inplace":
                    args = _clone(args)
                test = f"{name}:{k}" + (f":{variant}" if variant else "")
                h.call(_source("opinfo", test, where), fn, args, sample.kwargs)


# --- ModuleInfo -----------------------------------------------------------------------------------------

def _modules(h):
    from torch.testing._internal.common_modules import module_db

    classes = h.recorder._classes
    infos = [m for m in module_db if m.module_cls in classes
             and h.wanted_case(classes[m.module_cls], m.formatted_name)]
    h.recorder.allow_tensorless = True
    try:
        for done, info in enumerate(infos, 1):
            if h.begin(info.formatted_name):
                _module_info(h, info)
                h.finish()
            h.progress(done, len(infos), "modules")
    finally:
        h.recorder.allow_tensorless = False


def _module_info(h, info):
    where = _where(info.module_inputs_func)
    n = 0  # the entry's samples so far, every dtype's and mode's
    for dtype in sorted(info.supported_dtypes("cpu"), key=str):
        for training in (True, False):
            torch.manual_seed(0)
            name = f"{info.formatted_name}:{_dtype_name(dtype)}:{'train' if training else 'eval'}"
            try:
                inputs = info.module_inputs_func(info, device="cpu", dtype=dtype, requires_grad=False,
                                                 training=training)
            except Exception as e:
                if not h.done_before(n):
                    h.ferry.skip(f"ModuleInfo inputs failed: {type(e).__name__}", name)
                continue
            for k, module_input in enumerate(inputs):
                n += 1
                if module_input.forward_input is None or not h.sample(n - 1, f"{name}:{k}"):
                    continue
                h.tests += 1
                c, f = module_input.constructor_input, module_input.forward_input
                try:
                    module = info.module_cls(*c.args, **c.kwargs)
                    module.to(dtype)
                    module.train(training)
                except Exception as e:  # the constructor rejects the input: nothing to record
                    h.ferry.skip(f"module constructor failed: {type(e).__name__}", f"{name}:{k}")
                    continue
                h.call(_source("modules", f"{name}:{k}", where), module, f.args, f.kwargs)


# --- common_nn ------------------------------------------------------------------------------------------

def _nn_tests():
    """(kind, test dict) for every module and criterion test of common_nn, as test_nn makes them."""
    from torch.testing._internal import common_nn
    for d in common_nn.module_tests + common_nn.get_new_module_tests():
        yield "module", dict(d)
    for d in common_nn.criterion_tests:
        yield "criterion", dict(d)


def _nn(h):
    from torch.testing._internal import common_nn

    torch.manual_seed(0)
    tests = list(_nn_tests())
    built = []
    for kind, d in tests:
        if "constructor" not in d:
            d["constructor"] = getattr(torch.nn, d.pop("module_name"))
        d.pop("decorator", None)
        try:
            test = (common_nn.NewModuleTest if kind == "module" else common_nn.CriterionTest)(**d)
        except Exception as e:
            h.ferry.skip(f"common_nn test could not be made: {type(e).__name__}", d.get("fullname") or "?")
            continue
        if h.wanted_case(test.get_name(), "torch.nn." + getattr(test.constructor, "__name__", "")):
            built.append((kind, test))
    for done, (kind, test) in enumerate(built, 1):
        if h.begin(test.get_name()):
            h.tests += 1
            _nn_test(h, kind, test)
            h.finish()
        h.progress(done, len(built), "nn")


_nn_lines = []


def _nn_where(test):
    """(common_nn.py relative to torch's parent, line) of a test's dict: the line naming its fullname,
    or the module_name line of the dict with its desc (or with none); line None when not found (the
    tests that common_nn makes in loops)."""
    from torch.testing._internal import common_nn
    path = os.path.abspath(common_nn.__file__)
    if not _nn_lines:
        with open(path, encoding="utf-8") as f:
            _nn_lines.extend(f.read().splitlines())
    lines = _nn_lines
    where = os.path.relpath(path, os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__))))
    if test.fullname:
        needle = f"fullname='{test.fullname}'"
        return where, next((i + 1 for i, line in enumerate(lines) if needle in line), None)
    start = f"module_name='{getattr(test.constructor, '__name__', '')}'"
    for i, line in enumerate(lines):
        if start not in line:
            continue
        end = next((j for j in range(i + 1, min(i + 40, len(lines))) if "dict(" in lines[j]), min(i + 40, len(lines)))
        block = lines[i:end]
        if test.desc:
            if any(f"desc='{test.desc}'" in b for b in block):
                return where, i + 1
        elif not any("desc=" in b for b in block):
            return where, i + 1
    return where, None


def _nn_test(h, kind, test):
    name = test.get_name()
    torch.manual_seed(0)
    h.recorder.allow_tensorless = True
    try:
        with _default_dtype(test.default_dtype):
            try:
                module = test.constructor(*test.constructor_args)
                input = test._get_input()
                target = test._get_target() if kind == "criterion" else None
                extra = tuple(test.extra_args)
            except Exception as e:
                h.ferry.skip(f"common_nn test set-up failed: {type(e).__name__}", name)
                return
            args = input if isinstance(input, tuple) else (input,)
            if kind == "criterion":
                args = args + (target,) + extra
            h.call(_source("nn", name, _nn_where(test)), module, args, {})
    finally:
        h.recorder.allow_tensorless = False
