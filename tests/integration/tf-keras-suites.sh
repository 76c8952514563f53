#!/bin/sh
# Keras 2's own test knowledge beyond its docstrings: the applications suite (architectures built
# with weights=None at the smallest input they take) and the layer-tests suite, tf-keras's layer
# tests taken from an archive of its source tree. The archive is made here from a test file written
# here (tf-keras's tests are in neither its wheel nor its sdist), given as a file, a file:// URL and
# an http URL served on the loopback; a cached archive that changes, a file that is no tar, one that
# is missing and a server that cannot be reached each give one line, and the other suites still
# run. Nothing here reaches the network.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module tf_keras
need_python_module tensorflow
need_python_module pytest
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
plan 40
v=$("$py" -c 'from importlib import metadata; print(metadata.version("tf_keras"))')

# The source tree as the repository lays it out (the wheel's build moves it under tf_keras/src and
# points its imports there): a layer test in tf-keras's own form (a TestCase run in every Keras mode,
# calling test_utils.layer_test), a module beside it and a test outside tf_keras/layers.
tree="tf-keras-$v/tf_keras"
mkdir -p "$tree/layers/activation" "$tree/engine"
cat >"$tree/layers/activation/relu_tiny_test.py" <<'EOF'
import tensorflow.compat.v2 as tf

import tf_keras as keras
from tf_keras.testing_infra import test_combinations
from tf_keras.testing_infra import test_utils


@test_combinations.run_all_keras_modes
class ReLUTinyTest(test_combinations.TestCase):
    def test_relu(self):
        test_utils.layer_test(keras.layers.ReLU, kwargs={"max_value": 5.0}, input_shape=(2, 3, 4))


if __name__ == "__main__":
    tf.test.main()
EOF
echo 'x = 1' >"$tree/layers/activation/relu_tiny.py"
cp "$tree/layers/activation/relu_tiny_test.py" "$tree/engine/engine_tiny_test.py"
tar -czf src.tar.gz "tf-keras-$v"
echo 'not a tar' >notatar.tar.gz
export FERRY_CACHE="$work/cache"
tests="$work/cache/tf_keras-$v-tests"
harvest() { "$FERRY" harvest tf_keras -q -s docstrings -s layer-tests -f tf_keras.layers.ReLU "$@"; }

expect_exit 0 "the layer tests of an archive given as a file" -- harvest --tf-keras-archive src.tar.gz -o own.jsonl
check "... layer_test's calls are instances of the suite layer-tests" -- \
	grep -q '"op":"tf_keras.layers.ReLU".*"max_value":{[^}]*"values":\[5\]}.*"suite":"layer-tests"' own.jsonl
check "... each named by its pytest node (a Keras mode the test runs in)" -- \
	grep -q '"test":"tf_keras/src/layers/activation/relu_tiny_test.py::ReLUTinyTest::test_relu_v2_eager"' own.jsonl
check "... the docstrings were harvested too" -- grep -q '"suite":"docstrings"' own.jsonl
contains "the summary has a row for the layer tests" "$out" "layer-tests "
check "only tf_keras/layers/**/*_test.py is extracted, where the wheel's build puts it" -- \
	test -f "$tests/tf_keras/src/layers/activation/relu_tiny_test.py" -a ! -e "$tests/tf_keras/src/layers/activation/relu_tiny.py" \
	-a ! -e "$tests/tf_keras/src/engine"
check "... importing what the wheel has, as its build points them" -- \
	grep -q '^from tf_keras.src.testing_infra import test_utils$' "$tests/tf_keras/src/layers/activation/relu_tiny_test.py"
check "a file the user gave is not said to lack a published hash" -- sh -c '! grep -q "no published hash" "$1"' - "$work/.err"

# the cached archive changes behind ferry's back: refused, and its extracted tests are not run
printf 'x' >>"$work/cache/tf_keras-$v-src.tar.gz"
expect_exit 0 "a cached archive whose sha256 changed: the rest is harvested" -- \
	harvest --tf-keras-archive src.tar.gz -o changed.jsonl
contains "... and one line says why" "$err" "Keras 2's own tests are not harvested (layer-tests): the cached '$work/cache/tf_keras-$v-src.tar.gz' no longer has the sha256 recorded when it was downloaded"
n=$(grep -c "not harvested" "$work/.err" || true)
check "... once ($n)" -- [ "$n" -eq 1 ]
check "... the docstrings were harvested" -- grep -q '"suite":"docstrings"' changed.jsonl
check "... and no layer test ran" -- sh -c '! grep -q "\"suite\":\"layer-tests\"" changed.jsonl'
rm "$work/cache/tf_keras-$v-src.tar.gz"

expect_exit 0 "\$FERRY_TF_KERAS_ARCHIVE, a file:// URL, once the cached archive is removed" -- \
	env FERRY_TF_KERAS_ARCHIVE="file://$work/src.tar.gz" "$FERRY" harvest tf_keras -q -s layer-tests -o url.jsonl
check "... its layer tests are harvested" -- grep -q '"suite":"layer-tests"' url.jsonl

expect_exit 0 "an archive that is no tar: the rest is harvested" -- harvest --tf-keras-archive notatar.tar.gz -o notatar.jsonl
contains "... and one line says why" "$err" "Keras 2's own tests are not harvested (layer-tests): cannot extract the tests from"
check "... the docstrings were harvested" -- grep -q '"suite":"docstrings"' notatar.jsonl
check "... and it is not kept in the cache" -- test ! -e "$work/cache/tf_keras-$v-src.tar.gz"

# A "test file" of 17 MB (zeros, a few KB compressed) is no test file but a bomb: refused whole.
mkdir -p "bomb/tf-keras-$v/tf_keras/layers"
head -c 17825792 /dev/zero >"bomb/tf-keras-$v/tf_keras/layers/huge_test.py"
tar -czf bomb.tar.gz -C bomb "tf-keras-$v"
expect_exit 0 "an archive with a 17 MB test file: the rest is harvested" -- harvest --tf-keras-archive bomb.tar.gz -o bomb.jsonl
contains "... and one line says why" "$err" "holds a test file of over 16 MB: tf_keras/layers/huge_test.py"
check "... nothing of it is extracted" -- test ! -e "$tests/tf_keras/src/layers/huge_test.py"
rm -rf bomb

expect_exit 0 "a missing archive: the rest is harvested" -- harvest --tf-keras-archive missing.tar.gz -o missing.jsonl
contains "... and one line says why" "$err" "Keras 2's own tests are not harvested (layer-tests): no archive at '$work/missing.tar.gz'"
check "... the docstrings were harvested" -- grep -q '"suite":"docstrings"' missing.jsonl

expect_exit 0 "a server that cannot be reached: the rest is harvested" -- \
	harvest --tf-keras-archive http://127.0.0.1:9/src.tar.gz -o offline.jsonl
contains "... and one line says why" "$err" "cannot download http://127.0.0.1:9/src.tar.gz"

# An http URL, as GitHub's: nothing to check it against, so its sha256 is recorded and said.
mkdir www && cp src.tar.gz www/
# made here, not by the background job's redirection: under load the loop below may read it first
: >server.log
"$py" -m http.server 0 --bind 127.0.0.1 --directory www >>server.log 2>&1 &
server=$!
cleanup() { kill "$server" 2>/dev/null || true; rm -rf "$work"; }
port=
for _ in $(seq 60); do  # up to 30 s: python starts slowly on a busy machine
	port=$(sed -n 's/.* port \([0-9]*\).*/\1/p' server.log)
	[ -n "$port" ] && break
	sleep 0.5
done
url="http://127.0.0.1:$port/src.tar.gz"
sha=$("$py" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' src.tar.gz)
expect_exit 0 "an archive downloaded from a URL" -- "$FERRY" harvest tf_keras -q -s layer-tests --tf-keras-archive "$url" \
	-o http.jsonl
contains "... says it has no published hash, and the sha256 recorded" "$err" "$url has no published hash to check; its sha256 $sha is recorded"
check "... its layer tests are harvested" -- grep -q '"suite":"layer-tests"' http.jsonl
kill "$server"
expect_exit 0 "once cached, the server is not asked again" -- "$FERRY" harvest tf_keras -q -s layer-tests \
	--tf-keras-archive "$url" -o cached.jsonl
check "... its layer tests are harvested" -- grep -q '"suite":"layer-tests"' cached.jsonl
printf 'x' >>"$work/cache/tf_keras-$v-src.tar.gz"
expect_exit 0 "a downloaded archive that changed in the cache is refused" -- "$FERRY" harvest tf_keras -q \
	-s layer-tests -s docstrings -f tf_keras.layers.ReLU --tf-keras-archive "$url" -o changed2.jsonl
contains "... in one line" "$err" "no longer has the sha256 recorded when it was downloaded"
check "... and no layer test ran" -- sh -c '! grep -q "\"suite\":\"layer-tests\"" changed2.jsonl'

# applications: a small one at 32x32, and InceptionV3, which takes no less than 75x75
expect_exit 0 "the applications suite on two architectures" -- "$FERRY" harvest tf_keras -q -s applications \
	--test '*.MobileNetV3Small,*.InceptionV3' -o apps.jsonl
check "... MobileNetV3Small's layers, built at 32x32" -- \
	grep -q '"inputs":\[{"tensor":{"dtype":"float32","shape":\[null,32,32,3\]}}\].*"suite":"applications","test":"tf_keras.applications.MobileNetV3Small"' apps.jsonl
check "... InceptionV3's, built at 75x75" -- \
	grep -q '"inputs":\[{"tensor":{"dtype":"float32","shape":\[null,75,75,3\]}}\].*"suite":"applications","test":"tf_keras.applications.InceptionV3"' apps.jsonl
check "... two tests" -- grep -q '^  tests read  *2$' "$work/.out"
expect_exit 2 "--tf-keras-archive is for tf_keras only" -- "$FERRY" harvest keras --tf-keras-archive src.tar.gz -o k.jsonl
finish
