"""ferry.oracle.batch: several independent ONNX tests run as one model (ferry run --batch K).

A compiling frontend pays a fixed cost per model (its import and conversion set-up, pass pipelines,
code generation, a runtime module) that dwarfs the cost of one operator. merge() puts K tests' graphs
side by side in one model, every name of test i prefixed "b<i>_" (a prefix that ends at its first
'_', so no two tests' names can meet), and run_batch() loads, compiles and executes it once through
the adapter, splits the outputs back and judges each test's as driver.run() does.

Only what merges without changing any test's meaning is merged: the same IR version and opset
imports, the standard domains, no model functions and no subgraph attributes (an If's or a Loop's
body may name the outer graph's values, and renaming inside them is not worth the risk). Any other
test in the batch runs alone, as driver.run() runs it. A batch that fails in any way is the C side's
to split (oracle/session/jobs.c): what is recorded as a failure is always a test run alone.

PyTorch tests batch as one module whose forward calls each test's module on its own inputs and
returns their outputs side by side (torch_batch); the adapter's batch_load(module, example, meta)
makes of it what its load() makes of one test's (the module itself, or its torch.export), so that
compile and execute run as for one test. A test of random outputs runs alone.

An adapter takes part by declaring BATCH = True (registry.batches() reads it without importing the
adapter): only frontends whose batched outcomes were measured equal to their unbatched ones.
"""

import os
import shutil
import tempfile

import onnx

from ferry.oracle import driver

_DOMAINS = ("", "ai.onnx", "ai.onnx.ml")


def key(model):
    """What a model shares with those it may be merged with (IR version and opset imports), or None
    when it runs alone."""
    if model.functions or model.training_info or model.graph.sparse_initializer:
        return None
    if any(o.domain not in _DOMAINS for o in model.opset_import):
        return None
    for n in model.graph.node:
        if n.domain not in _DOMAINS:
            return None
        for a in n.attribute:
            if a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) or a.HasField("g") or a.graphs:
                return None
    return (model.ir_version, tuple(sorted((o.domain, o.version) for o in model.opset_import)))


def _renamed(items, prefix):
    return [prefix + s if s else s for s in items]  # "" is an omitted optional input: it stays


def merge(models):
    """One model holding each of models' graphs, test i's names prefixed "b<i>_"; its inputs and
    outputs are the tests' in test order."""
    first = models[0]
    merged = onnx.ModelProto()
    merged.ir_version = first.ir_version
    merged.opset_import.extend(first.opset_import)
    merged.producer_name = "ferry-batch"
    g = merged.graph
    g.name = "ferry_batch"
    for i, model in enumerate(models):
        prefix = f"b{i}_"
        src = model.graph
        for field in ("input", "output", "value_info", "initializer"):
            for item in getattr(src, field):
                copy = getattr(g, field).add()
                copy.CopyFrom(item)
                copy.name = prefix + item.name
        for node in src.node:
            copy = g.node.add()
            copy.CopyFrom(node)
            del copy.input[:]
            copy.input.extend(_renamed(node.input, prefix))
            del copy.output[:]
            copy.output.extend(_renamed(node.output, prefix))
            if copy.name:
                copy.name = prefix + copy.name
        for q in src.quantization_annotation:
            copy = g.quantization_annotation.add()
            copy.CopyFrom(q)
            copy.tensor_name = prefix + q.tensor_name
    return merged


def run_batch(adapter, testdirs):
    """Run the tests in testdirs through the adapter, those that merge as one model per group of
    the same key (key() for ONNX; for PyTorch every test but one of random outputs): a list of
    driver.run()'s verdicts, one per test, in order; or, when a merged model fails in any stage (or
    gives another number of outputs than its tests have), that failure alone, a verdict as
    driver.run()'s: the batch is then no test's result."""
    metas = [driver._meta(d) for d in testdirs]
    if getattr(adapter, "LIBRARY", "onnx") == "torch":
        models = [None] * len(testdirs)
        keys = [None if m.get("random") else "torch" for m in metas]
        merged = _run_torch_merged
    else:
        models = [onnx.load(os.path.join(d, f"model.{adapter.FORMAT}"), load_external_data=False) for d in testdirs]
        keys = [key(m) if adapter.FORMAT == "onnx" else None for m in models]
        merged = _run_onnx_merged
    groups = {}
    for k, kk in enumerate(keys):
        groups.setdefault(kk if kk is not None else ("alone", k), []).append(k)
    verdicts = [None] * len(testdirs)
    for members in groups.values():
        if len(members) == 1:
            verdicts[members[0]] = driver.run(adapter, testdirs[members[0]])
            continue
        got = merged(adapter, [testdirs[k] for k in members], [metas[k] for k in members],
                     [models[k] for k in members])
        if not isinstance(got, list):
            return got
        for k, v in zip(members, got):
            verdicts[k] = v
    return verdicts


def _feed(inputs):
    """The merged model's inputs: test i's input NAME as b<i>_NAME."""
    return {f"b{i}_{name}": value for i, each in enumerate(inputs) for name, value in each.items()}


def _judge(testdirs, metas, inputs, outputs, counts):
    """Each test's verdict of its share of a merged model's outputs (counts[i] of them for test i),
    or a mismatch of the batch when the outputs are another number."""
    if not isinstance(outputs, list):
        return outputs
    if len(outputs) != sum(counts):
        return (driver._words.VERDICT_MISMATCH, f"the batch gave {len(outputs)} outputs, its tests have {sum(counts)}")
    verdicts, at = [], 0
    for d, meta, each, n in zip(testdirs, metas, inputs, counts):
        verdicts.append(driver.judge(d, meta, each, outputs[at:at + n]))
        at += n
    return verdicts


def _run_onnx_merged(adapter, testdirs, metas, models):
    inputs = [driver.test_inputs(d, m) for d, m in zip(testdirs, metas)]
    scratch = tempfile.mkdtemp(prefix="ferry-batch-")
    try:
        with open(os.path.join(scratch, f"model.{adapter.FORMAT}"), "wb") as f:
            f.write(merge(models).SerializeToString())
        outputs = driver.run_stages(adapter, scratch, _feed(inputs))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return _judge(testdirs, metas, inputs, outputs, [len(m.graph.output) for m in models])


def _output_count(meta):
    """How many arrays a test's outputs flatten to: one per tensor, one per element of a sequence."""
    return sum(len(e["files"]) if e["kind"] == "sequence" else 1 for e in meta["outputs"])


def _run_torch_merged(adapter, testdirs, metas, models):
    from ferry.templates import torch as template_torch

    del models  # PyTorch tests are loaded by the load stage, as adapters load one
    inputs = [driver.test_inputs(d, m) for d, m in zip(testdirs, metas)]
    meta = {"inputs": [dict(e, name=f"b{i}_{e['name']}") for i, m in enumerate(metas) for e in m["inputs"]]}

    def load():
        modules, example, counts = [], [], []
        for d, m in zip(testdirs, metas):
            module, _ = template_torch.load_testdir(d)
            each = template_torch.testdir_example(d, m)
            modules.append(module)
            example.extend(each)
            counts.append(len(each))
        return adapter.batch_load(torch_batch(modules, counts), example, meta)

    outputs = driver.run_stages(adapter, testdirs[0], _feed(inputs), load=load)
    return _judge(testdirs, metas, inputs, outputs, [_output_count(m) for m in metas])


_torch_batch = None


def torch_batch(modules, counts):
    """Tests' modules side by side in one torch.nn.Module: forward takes every test's inputs in test
    order (counts[i] of them for test i) and returns a tuple of every test's outputs. The class is
    made on first use: a worker of ONNX tests never imports torch."""
    global _torch_batch
    if _torch_batch is None:
        import torch

        class TorchBatch(torch.nn.Module):
            def __init__(self, modules, counts):
                super().__init__()
                self.tests = torch.nn.ModuleList(modules)
                self.counts = list(counts)

            def forward(self, *inputs):  # named as the tests' own forward names them (inputs_K)
                outs, at = [], 0
                for module, n in zip(self.tests, self.counts):
                    outs.append(module(*inputs[at:at + n]))
                    at += n
                return tuple(outs)

        _torch_batch = TorchBatch
    return _torch_batch(modules, counts)
