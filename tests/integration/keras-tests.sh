#!/bin/sh
# Keras's own tests as a source of ferry harvest keras, end to end through the sandboxed children:
# the sdist comes from a package index (here a local one, file:// URLs, packing tests/data/keras-sdist
# as the installed version's), is checked by hash and cached; offline or on a hash that does not
# match, one line says so and the rest is harvested. Also a checkout whose tests import its root
# conftest.py, and a test file that fails to import. Nothing here reaches the network.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module keras
need_python_module tensorflow
need_python_module pytest
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 21

# index DIR SHA256: a JSON API in DIR for the sdist packed here, with the given sha256 ("" for its own)
"$py" - "$top_srcdir/tests/data/keras-sdist" "$work" <<'PY'
import hashlib, json, os, sys, tarfile
from importlib import metadata
data, work = sys.argv[1:]
v = metadata.version("keras")
tgz = os.path.join(work, f"keras-{v}.tar.gz")
with tarfile.open(tgz, "w:gz") as tar:
    tar.add(data, arcname=f"keras-{v}")
good = hashlib.sha256(open(tgz, "rb").read()).hexdigest()
for name, sha in (("index", good), ("badindex", "f" * 64)):
    os.makedirs(os.path.join(work, name, "keras", v))
    with open(os.path.join(work, name, "keras", v, "json"), "w") as f:
        json.dump({"info": {"version": v}, "urls": [{"packagetype": "sdist", "url": "file://" + tgz,
                                                       "digests": {"sha256": sha}}]}, f)
PY

export FERRY_CACHE="$work/cache"
FERRY_PYPI=http://127.0.0.1:9/pypi expect_exit 0 "offline, the rest is harvested" -- "$FERRY" harvest keras -q \
	-s docstrings -s layer-tests -f keras.layers.ZeroPadding2D -o offline.jsonl
contains "... and one line says why" "$err" "Keras's own tests are not harvested (layer-tests): cannot reach the package index at http://127.0.0.1:9/pypi"
n=$(grep -c "not harvested" "$work/.err" || true)
check "... once ($n)" -- [ "$n" -eq 1 ]
check "... the docstrings were harvested" -- grep -q '"suite":"docstrings"' offline.jsonl

FERRY_PYPI="file://$work/badindex" expect_exit 0 "a sdist whose hash does not match: the rest is harvested" -- \
	"$FERRY" harvest keras -q -s docstrings -s ops-tests -f keras.layers.ZeroPadding2D -o bad.jsonl
contains "... and one line says why" "$err" "does not have the sha256 the index gives"
check "... nothing was cached" -- test ! -d "$work/cache/keras-$("$py" -c 'from importlib import metadata; print(metadata.version("keras"))')-tests"

FERRY_PYPI="file://$work/index" expect_exit 0 "the layer and ops tests from a sdist whose hash matches" -- \
	"$FERRY" harvest keras -s layer-tests -s ops-tests --keras-tests all -o own.jsonl
contains "the summary has a row for the layer tests" "$out" "layer-tests "
contains "... and one for the ops tests" "$out" "ops-tests "
contains "a test file that fails to import is said, with why" "$out" \
	"test file failed to import: keras/src/layers/core/broken_test.py: ModuleNotFoundError: No module named 'ferry_no_such_module'"
contains "... and counted" "$out" "test files that failed to import 1"
check "a test that imports the root conftest.py was harvested" -- \
	grep -q '"op":"keras.layers.Dense".*"suite":"layer-tests"' own.jsonl
check "keras.ops.add is an instance of the ops tests" -- grep -q '"op":"keras.ops.add".*"suite":"ops-tests"' own.jsonl
check "set-up calls are not instances" -- sh -c '! grep -q "keras.ops.convert_to\|keras.ops.shape" own.jsonl'
progress=$(tr '\r' '\n' < "$work/.err" | grep -o '[0-9]*/[0-9]* ([0-9]*%)' || true)
over=$(printf '%s\n' "$progress" | awk -F'[/ ]' '$1 > $2' | wc -l)
check "progress never passes 100% ($over over)" -- [ "$over" -eq 0 ]

expect_exit 0 "once cached, no index is needed" -- env FERRY_PYPI=http://127.0.0.1:9/pypi \
	"$FERRY" harvest keras -q -s ops-tests --keras-tests all -o cached.jsonl
check "... and the ops tests are harvested" -- grep -q '"op":"keras.ops.add"' cached.jsonl

expect_exit 0 "a checkout's test deep in its tree imports the checkout's root conftest.py" -- \
	"$FERRY" harvest keras -q --pytest "$top_srcdir/tests/data/keras-checkout/pkg/layers/test_tiny.py" -o checkout.jsonl
check "... and its Dense calls are harvested" -- grep -q '"op":"keras.layers.Dense".*"suite":"pytest"' checkout.jsonl
expect_exit 2 "--keras-tests is for keras only" -- "$FERRY" harvest torch --keras-tests all -o t.jsonl
finish
