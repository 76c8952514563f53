#!/bin/sh
# Hostile corpora (tests/data/injection/LIBRARY.jsonl): operator names, callable arguments, configured
# objects, dataclasses, strings, attributes and test names that would run a shell, exec or eval code,
# write or delete a file, if anything resolved a name by walking modules or pasted text into generated
# Python. They go through wrap, run, report -o and show -o, and every reproducer and exported test
# made is run: no marker file may appear in marks/, the sentinel file must survive, every hostile
# name must be invalid with the allow-list's reason, and the valid instances (whose text reaches the
# reproducers) must be valid. The frontend is tests/data/injection/adapters/adapter_wrong.py, a real
# frontend (ort, openvino-pytorch or inductor, tflite) whose every answer is wrong, so that every
# valid instance is a failure with a reproducer. Each corpus line names in "expect" the reason its
# instance is invalid, or "valid".
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
has() { "$py" -c "import $1" 2>/dev/null; }

# library:frontend for each library whose template and a fast frontend are installed
pairs=""
if has onnx && has onnxruntime; then pairs="$pairs onnx:ort"; fi
if has torch; then
	if has openvino; then pairs="$pairs torch:openvino-pytorch"
	elif command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1; then pairs="$pairs torch:inductor"; fi
fi
if has keras && has tensorflow; then pairs="$pairs keras:tflite"; fi
[ -n "$pairs" ] || skip_all "no library with a frontend is installed"

n=2
for pair in $pairs; do n=$((n + 6 + $(wc -l < "$top_srcdir/tests/data/injection/${pair%%:*}.jsonl"))); done
plan $n

mkdir marks
echo "a payload would delete this file" > sentinel
export FERRY_ADAPTERS="$top_srcdir/tests/data/injection/adapters"
run_quietly() { if command -v timeout >/dev/null 2>&1; then timeout 600 "$@"; else "$@"; fi; }

for pair in $pairs; do
	lib=${pair%%:*}
	export FERRY_WRONG_OF=${pair#*:}
	sed -e "s|@MARKS@|$work/marks|g" -e "s|@SENTINEL@|$work/sentinel|g" \
		"$top_srcdir/tests/data/injection/$lib.jsonl" > "$lib.jsonl"
	expect_exit 0 "$lib: wrap the hostile corpus" -- "$FERRY" wrap "$lib.jsonl" -o "wrapped-$lib" -q -j 2
	# one verdict per instance: 0 or 1, then what it is
	"$py" - "wrapped-$lib/wrapped.jsonl" > "verdicts-$lib" <<'EOF'
import json, sys


def plain(text, n):  # one line for TAP, without the backslashes sh's echo would interpret
    return "".join(c if c.isascii() and c.isprintable() and c != "\\" else "?" for c in str(text))[:n]


for line in open(sys.argv[1]):
    r = json.loads(line)
    w, want = r.get("wrap", {}), r["expect"]
    what = plain(r["op"], 60) + " (" + plain(r["source"].get("test", ""), 45) + ")"
    if want == "valid":
        good = w.get("status") == "ok"
        print(0 if good else 1, f"valid: {what}" + ("" if good else f" # {plain(w.get('reason'), 200)}"))
    else:
        good = w.get("status") == "invalid" and want in (w.get("reason") or "")
        print(0 if good else 1, f"invalid, reason '{plain(want, 60)}': {what}" +
              ("" if good else f" # got {w.get('status')}: {plain(w.get('reason'), 200)}"))
EOF
	while read -r code name; do ok "$code" "$lib: $name"; done < "verdicts-$lib"
	valid=$(grep -c '"expect": "valid"' "$lib.jsonl")

	expect_exit 0 "$lib: run through $FERRY_WRONG_OF (every answer made wrong)" -- \
		"$FERRY" run "wrapped-$lib" --frontend "wrong:$lib" -o "results-$lib.db" -j 2 -q --timeout 600
	expect_exit 0 "$lib: report writes reproducers" -- "$FERRY" report "results-$lib.db" -o "repro-$lib"
	written=$(ls "repro-$lib"/*/*.py 2>/dev/null | wc -l)
	check "$lib: a reproducer for each valid instance ($written of $valid)" -- [ "$written" -eq "$valid" ]
	bad=""
	for f in "repro-$lib"/*/*.py; do
		[ -f "$f" ] || continue
		"$py" -m py_compile "$f" 2>/dev/null || bad="$bad $f"
		run_quietly "$py" "$f" >/dev/null 2>&1 || true
	done
	check "$lib: every reproducer is Python that compiles (not:$bad)" -- [ -z "$bad" ]

	bugs=$("$FERRY" bugs "results-$lib.db" | awk 'NR > 3 && $1 ~ /^[0-9a-f]+$/ { print $1 }')
	shown=0 failed=""
	for bug in $bugs; do
		if "$FERRY" show "results-$lib.db" "$bug" -o "show-$lib-$bug" >/dev/null 2>&1; then
			shown=$((shown + 1))
		else
			failed="$failed $bug"
		fi
		for f in "show-$lib-$bug"/reproducer.py "show-$lib-$bug"/*/test_*.py; do
			[ -f "$f" ] || continue
			# an exported test module is imported and its test functions called, as pytest would
			run_quietly "$py" -c 'import runpy, sys
ns = runpy.run_path(sys.argv[1], run_name="ferry_injection")
for name, f in list(ns.items()):
    if name.startswith("test_") and callable(f):
        f()' "$f" >/dev/null 2>&1 || true
		done
	done
	check "$lib: show exports every bug ($shown shown; failed:$failed)" -- test "$shown" -ge 1 -a -z "$failed"
done

left=$(ls marks)
check "no payload ran: marks/ is empty (holds: $(echo $left))" -- [ -z "$left" ]
check "no payload deleted the sentinel" -- [ -f sentinel ]
finish
