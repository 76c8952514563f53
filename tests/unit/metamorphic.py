"""Unit tests of the metamorphic oracle's mutations (ferry.oracle.metamorphic) on small models: each
relation gives a model that onnx.checker and strict shape inference accept and that the reference
computes as the original (UOC for fresh random inputs too, PIOC for the inputs it was made for);
tensors that are not finite are never a zero's operands; targets it cannot take are counted; old
opsets and IR versions get nodes of their own; a subset of the chain rebuilds with its
dependencies; the reducer finds the two mutations a synthetic failure needs, with their
dependencies, and removes the junk. Prints TAP; run by tests/unit/test-metamorphic.sh."""

import warnings

warnings.simplefilter("ignore")

import numpy as np  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
from tap import comment, done, is_, ok  # noqa: E402

from ferry.oracle import metamorphic as mt  # noqa: E402


def model(nodes, inputs, outputs, opset=17, ir=None, inits=()):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    if ir is not None:
        m.ir_version = ir
    return m


F = TensorProto.FLOAT
# x, y -> Relu(x) * y -> Conv-free but two operators and an intermediate tensor
SMALL = model([helper.make_node("Relu", ["x"], ["r"], name="relu"), helper.make_node("Mul", ["r", "y"], ["out"], name="mul")],
              [("x", F, [2, 3]), ("y", F, [3])], [("out", F, [2, 3])])


def feeds(seed):
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((2, 3)).astype(np.float32), "y": rng.standard_normal(3).astype(np.float32)}


def same(m, mutated, inputs):
    a = mt.reference_values(m, inputs)
    b = mt.reference_values(mutated, inputs)
    return all(mt._same(a[o.name], b[o.name]) for o in m.graph.output)


def valid(m):
    try:
        mt.check(m)
        return True
    except Exception as e:
        comment(f"{type(e).__name__}: {e}")
        return False


# --- each relation -------------------------------------------------------------------------------
for kind in ("uoc", "pioc"):
    made = mt.mutate(SMALL, feeds(0), 4, seed=3, kinds=(kind,))
    is_(made.stats["applied"], 4, f"{kind}: four mutations applied")
    is_(made.stats["dropped"], 0, f"{kind}: none dropped")
    ok(all(r["kind"] == kind for r in made.chain), f"{kind}: every record is of its kind")
    ok(all({"kind", "target", "target_op", "fold", "nodes", "depends", "junk"} <= set(r) for r in made.chain),
       f"{kind}: each record says kind, target, target_op, fold, nodes, depends, junk")
    ok(mt.count_nodes(made.model) > mt.count_nodes(SMALL), f"{kind}: nodes were inserted")
    ok(valid(made.model), f"{kind}: the mutated model passes the checker and strict shape inference")
    ok(same(SMALL, made.model, feeds(0)), f"{kind}: the reference computes it as the original on its inputs")
    if kind == "uoc":
        ok(all(same(SMALL, made.model, feeds(s)) for s in range(1, 6)),
           "uoc: and on fresh random inputs: zero for every input")
for fold in ("add", "mul"):
    folds = [r["fold"] for s in range(6) for r in mt.mutate(SMALL, feeds(0), 3, seed=s).chain]
    ok(fold in folds, f"folds as t {'+ zero' if fold == 'add' else '* (1 + zero)'} too")
chains = [mt.mutate(SMALL, feeds(0), 4, seed=s).chain for s in range(8)]
ok(any(r["junk"] for c in chains for r in c), "some mutations carry junk")
ok(any(r["depends"] for c in chains for r in c), "some depend on earlier mutations")
ok(all(r["target_op"] in ("Relu", "Mul") or r["target_op"].endswith("(inserted)") for c in chains for r in c),
   "a target's operator is the model's (or says it was inserted)")
is_(mt.mutate(SMALL, feeds(0), 3, seed=5).chain, mt.mutate(SMALL, feeds(0), 3, seed=5).chain,
    "the same seed makes the same chain")

# --- what is never an operand, and what is no target ---------------------------------------------
inf = {"x": np.array([[np.inf, 1, 2], [3, -np.inf, np.nan]], np.float32), "y": np.array([0.5, 1, 2], np.float32)}
made = mt.mutate(SMALL, inf, 4, seed=1)
ok(made.stats["applied"] == 4 and same(SMALL, made.model, inf), "Inf and NaN in the model: mutations still hold")
ok(all(x not in ("x", "r", "out") for r in made.chain for x in r["operands"]),
   "and none reads a tensor that is not finite")
nothing = dict(inf, y=np.array([np.nan, 1, 2], np.float32))
made = mt.mutate(SMALL, nothing, 4, seed=1)
is_((made.stats["applied"], made.stats.get("none")), (0, "no operand for a zero"),
    "where no tensor is finite, nothing is mutated, and it says why")
ints = model([helper.make_node("Add", ["a", "b"], ["c"])], [("a", TensorProto.INT64, [3]), ("b", TensorProto.INT64, [3])],
             [("c", TensorProto.INT64, [3])])
made = mt.mutate(ints, {"a": np.arange(3), "b": np.arange(3)}, 3, seed=0)
is_((made.stats["applied"], made.stats["skipped"]), (0, {"int64": 3}), "integer tensors are no targets, and counted")
ok("none" in made.stats, f"and it says why nothing applied: {made.stats.get('none')}")

# --- old opsets and IR versions ------------------------------------------------------------------
old = model([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Mul", ["r", "y"], ["out"])],
            [("x", F, [2, 3]), ("y", F, [3])], [("out", F, [2, 3])], opset=8, ir=3)
made = mt.mutate(old, feeds(0), 4, seed=2, kinds=("uoc",))
ok(made.stats["applied"] == 4 and valid(made.model) and same(old, made.model, feeds(0)),
   "opset 8, IR 3: valid and the same")
ok(not made.model.graph.initializer and any(n.op_type == "Constant" for n in made.model.graph.node),
   "IR 3: constants as Constant nodes, no initializers")
ok(all(len(n.input) == 1 for n in made.model.graph.node if n.op_type == "Slice"), "opset 8: Slice by attributes")
older = model([helper.make_node("Relu", ["x"], ["out"])], [("x", F, [2, 3])], [("out", F, [2, 3])], opset=6)
made = mt.mutate(older, {"x": feeds(0)["x"]}, 2, seed=0)
ok(made.stats["applied"] == 2 and mt.default_opset(made.model) == 7,
   "opset 6 is raised to 7 where no node changes schema")

# --- apply and reduce ----------------------------------------------------------------------------
made = mt.mutate(SMALL, feeds(0), 8, seed=11)
chain = made.chain
whole = mt.apply(SMALL, made.model, chain, list(range(len(chain))))
is_(mt.count_nodes(whole), mt.count_nodes(made.model), "apply() of the whole chain is m'")
ok(same(SMALL, whole, feeds(0)), "and computes the same")
subsets_ok = True
for q in range(len(chain)):
    part = mt.apply(SMALL, made.model, chain, [q], no_junk=[q])
    subsets_ok &= valid(part) and same(SMALL, part, feeds(0))
ok(subsets_ok, "each mutation alone (with what it depends on, without junk) is valid and the same")
deps = [r for r in chain if r["depends"]]
ok(bool(deps), f"the chain has dependencies ({[(r['index'], r['depends']) for r in chain]})")
if deps:
    q = deps[-1]["index"]
    is_(mt.closure(chain, [q])[-1], q, "closure() keeps a mutation last, after what it depends on")
    ok(set(deps[-1]["depends"]) <= set(mt.closure(chain, [q])), "and includes its dependencies")

# a failure that needs exactly two mutations: b depends on something, a is another
b = deps[-1]["index"] if deps else len(chain) - 1
a = next(r["index"] for r in chain if r["index"] not in mt.closure(chain, [b]))
calls = []


def fails(m):
    calls.append(1)
    present = {n.name.split("_")[1] for n in m.graph.node if n.name.startswith("ferry_m")}
    return f"m{a}" in present and f"m{b}" in present


result = mt.reduce(SMALL, made.model, chain, fails)
is_(result["keep"], mt.closure(chain, [a, b]), f"reduce() keeps mutations {a} and {b} and their dependencies")
is_(result["no_junk"], [q for q in result["keep"] if chain[q]["junk"]], "and removes every junk")
ok(result["complete"] and fails(result["model"]), "the reduced model still fails")
ok(mt.count_nodes(result["model"]) < mt.count_nodes(made.model),
   f"and is smaller ({mt.count_nodes(made.model)} nodes to {mt.count_nodes(result['model'])})")
ok(not any(n.name in [x for r in chain for x in r["junk"]] for n in result["model"].graph.node), "no junk node is left")
is_(result["tests"], len(calls) - 1, f"each candidate tried once ({result['tests']})")
result = mt.reduce(SMALL, made.model, chain, lambda m: False)
ok(not result["complete"], "a chain that does not fail whole is not reduced")
done()
