#!/bin/sh
# The source libraries come from one registry, the templates' and harvesters' own declarations
# (ferry/templates/registry.py): a library added as new files only (tests/data/registry: a template,
# a harvester, a user's adapter) is harvested, varied along the dtypes it declares, counted, listed
# by --version and run end to end by ferry go, and every command's list of libraries names it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module numpy
plan 20
data=$top_srcdir/tests/data/registry

# A copy of ferry's package with the library's files added, and nothing else changed.
mkdir pkg
cp -RL "$top_builddir/python/ferry" pkg/ferry
cp "$data/templates/twice.py" pkg/ferry/templates/
cp "$data/extract/harvest_twice.py" pkg/ferry/extract/
FERRY_PYDIR=$work/pkg FERRY_ADAPTERS=$data/adapters
export FERRY_PYDIR FERRY_ADAPTERS

expect_exit 2 "an unknown source names the registry's libraries" -- "$FERRY" harvest nosuch -o c.jsonl
contains "... the new one among them" "$err" ", twice)"
expect_exit 2 "so does ferry go" -- "$FERRY" go nosuch -F twice-np
contains "... with the new one" "$err" "twice)"

expect_exit 0 "the new library is harvested" -- "$FERRY" harvest twice -q -o corpus.jsonl
check "its two examples are instances" -- [ "$(wc -l < corpus.jsonl)" -eq 2 ]
expect_exit 0 "it declares suites: --suite is taken" -- "$FERRY" harvest twice -q -s examples -o c2.jsonl
expect_exit 2 "a library that declares no suites takes no --suite" -- "$FERRY" harvest onnx -s examples -o c3.jsonl

expect_exit 0 "vary tries the dtypes its template declares" -- "$FERRY" vary corpus.jsonl -o variants.jsonl -q -j 1
check "... int32, which no other library's list puts first" -- grep -q '"dtype":"int32"' variants.jsonl

printf 'import twice\n\n\nclass M:\n    def f(self, x):\n        return twice.double(x)\n' >test_twice.py
expect_exit 0 "count-tests resolves the names it declares (COUNT_ROOTS)" -- \
	"$FERRY" count-tests --library twice test_twice.py -o counts.json
check "... twice.double counted once" -- grep -q '"twice.double": *1' counts.json

expect_exit 0 "--version lists what it declares (VERSIONS)" -- "$FERRY" --version
contains "... twice, not installed as a distribution" "$out" "library twice: not installed"

# A record's library reaches only a template the registry lists, not another module of the package.
sed 's/"library":"twice"/"library":"onnx_subgraph"/; s/"example0"/"helper"/' corpus.jsonl >helper.jsonl
sed 's/"library":"twice"/"library":"registry"/' corpus.jsonl >>helper.jsonl
expect_exit 0 "wrap reads records whose library names a module of the templates that is no template" -- \
	"$FERRY" wrap helper.jsonl -o helper -q
check "... and takes them for none" -- test "$(grep -c "no template for library" helper/wrapped.jsonl)" -eq 4

# A template that declares itself wrongly is named, not passed over.
printf 'LIBRARY = "broken"\nDTYPES = ["float32"]\n' >pkg/ferry/templates/broken.py
expect_exit 3 "a template with a malformed declaration stops the command" -- "$FERRY" harvest twice -q -o c4.jsonl
contains "... naming the file and what it lacks" "$err" "broken.py' does not declare DTYPES (a tuple literal at module level)"
rm pkg/ferry/templates/broken.py
expect_exit 0 "ferry go takes it end to end, with its frontend from the adapters" -- "$FERRY" go twice -o proj
contains "... and both of its tests ran and passed" "$out" "2 ran now, 2 pass"
finish
