"""Unit tests of the inputs the Keras 2 template draws for a tensor whose values a symbolic call did
not record (templates/tf_keras.py): an index space the layer's configuration gives is drawn from.
Prints TAP; run by tests/unit/test-tf-keras-inputs.sh."""

import json
import warnings

warnings.simplefilter("ignore")

from ferry.extract import tfload  # noqa: E402

tfload.load()  # TensorFlow as ferry imports it, before tf_keras

import numpy as np  # noqa: E402
from tap import done, is_, ok  # noqa: E402

from ferry.templates import tf_keras as template  # noqa: E402


def record(op, params, dtype="float32", shape=(None, 10), tensor_range=None):
    body = {"dtype": dtype, "shape": list(shape)}
    if tensor_range:
        body["range"] = tensor_range
    return {"id": "0123456789abcdef0123456789abcdef", "kind": "layer", "library": "tf_keras",
            "op": f"tf_keras.layers.{op}", "context": {}, "inputs": [{"tensor": body}],
            "outputs": [], "params": params}


# A Sequential model's Embedding, as its docstring builds it: Keras 2 casts the float32 input to
# indices, so normal floats would make negative ones, which Keras 2 itself refuses.
emb = record("Embedding", {"input_dim": {"int": 1000}, "output_dim": {"int": 4}})
x = template._Plan(emb).inputs()[0]
ok(x.dtype == np.float32 and np.all(x == np.floor(x)) and x.min() >= 0 and x.max() <= 999,
   f"an Embedding's float input is whole indices in [0, input_dim) (min {x.min()}, max {x.max()})")
is_(template.validate(json.dumps(emb))["status"], "ok", "... which Keras 2 accepts")
repro = template.reproducer_test(json.dumps(emb), "/nonexistent")["test"]
ok("[0, 999], whole=True)" in repro, "the reproducer draws the same inputs")
cat = record("CategoryEncoding", {"num_tokens": {"int": 6}, "output_mode": {"str": "one_hot"}}, "int32", (None,))
y = template._Plan(cat).inputs()[0]
ok(y.min() >= 0 and y.max() <= 5, f"CategoryEncoding's input is in [0, num_tokens) ({y.min()}..{y.max()})")
is_(template.validate(json.dumps(cat))["status"], "ok", "... which Keras 2 accepts")
# A range the record kept wins: it is what the library's test fed.
kept = record("Embedding", {"input_dim": {"int": 1000}, "output_dim": {"int": 4}}, tensor_range=[3, 7])
z = template._Plan(kept).inputs()[0]
ok(z.min() >= 3 and z.max() <= 7, f"a recorded range is kept ({z.min()}..{z.max()})")
# A layer without an index space draws as before: normal floats.
dense = record("Dense", {"units": {"int": 2}})
ok(template._Plan(dense).inputs()[0].min() < 0, "a Dense input is drawn as normal floats, negatives included")
done()
