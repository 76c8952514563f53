#!/bin/sh
# ferry vary's type variants and extremes, at the default quota of variants per instance, on three
# instances of PyTorch's normalize (as OpInfo has them: p and eps floats, dim an int): eps=1e-12
# given as the int 1 is tried, PyTorch keeps it, and the variant says so; and p=1e30 is tried
# alone, before any pair that holds it (the three parents each start at another parameter's most
# extreme value, so that between them each is reached alone).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
need_python_module torch
py="${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}"
plan 8

for shape in '2,3' '4,5' '3,2,2'; do
	printf '{"library":"torch","op":"torch.nn.functional.normalize","kind":"function","context":{},"params":{"dim":{"int":1},"eps":{"float":1e-12},"p":{"float":2}},"inputs":[{"tensor":{"dtype":"float32","shape":[%s],"range":[-1,1]}}],"outputs":[{"tensor":{"dtype":"float32","shape":[%s]}}],"source":{"suite":"t"}}\n' \
		"$shape" "$shape"
done > corpus.jsonl
expect_exit 0 "vary three normalize instances at the default quota" -- "$FERRY" vary corpus.jsonl -o v.jsonl -j 2 -q
check "the summary counts the type variants kept" -- \
	sh -c 'printf "%s\n" "$1" | grep -Eq "^ +type +[0-9]+ +[1-9]"' sh "$out"

# verdict LABEL: the log's status of the candidate labelled LABEL ("none" when not tried)
verdict() {
	"$py" - v.jsonl.log "$1" <<'PY'
import json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["vary"] == sys.argv[2]]
print(",".join(r["status"] for r in rows) or "none")
PY
}
got=$(verdict 'param:eps=1')
check "eps=1e-12 as the int 1 is tried and kept (got $got)" -- sh -c "echo '$got' | grep -q kept"
check "... as the int 1, named by its label" -- "$py" -c '
import json, sys
v = [json.loads(l) for l in open("v.jsonl")]
sys.exit(not any(r["variant"]["vary"] == "param:eps=1" and r["params"]["eps"] == {"int": 1} for r in v))'
got=$(verdict 'param:p=1e30')
check "p=1e30 is tried alone (got $got)" -- sh -c "[ '$got' != none ]"
firsts=$("$py" - v.jsonl.log <<'PY'
import json, sys
first = {}
for r in map(json.loads, open(sys.argv[1])):
    if r["vary"].startswith(("param:", "pair:")):
        first.setdefault(r["parent"], r["vary"])
print(" ".join(sorted(first.values())))
PY
)
check "each parent's first parameter change is another parameter's extreme alone (got $firsts)" -- \
	[ "$firsts" = "param:dim=1024 param:eps=1e30 param:p=1e30" ]
check "... before any pair that holds it" -- "$py" -c '
import json, sys
labels = [json.loads(l)["vary"] for l in open("v.jsonl.log")]
alone = labels.index("param:p=1e30")
sys.exit(any(l.startswith("pair:") and "p=1e30" in l.split(":", 1)[1].split(",") for l in labels[:alone]))'
check "a type variant of an int (dim=1.0) or of a float's type is in the log" -- sh -c \
	"grep -q '\"vary\":\"param:dim=1.0\"\\|\"vary\":\"param:p=2\"' v.jsonl.log"
finish
