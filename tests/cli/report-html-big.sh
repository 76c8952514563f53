#!/bin/sh
# ferry report --html on a store of hundreds of bugs, as a real one holds: rendered in headless
# Chromium at 1280 and 800 pixels wide, the page does not overflow sideways (measured: the
# document's scrollWidth against its width), a bug's "what failed" leads with the decisive part of
# an IREE message ("failed to legalize ...", not "<stdin>:4:10: error:") and is inside the window;
# each bug says where its tests came from (harvested, variant, graph, reduced) and marks the ones
# only ferry-made tests find; the bug list sorts by a heading and filters by text, origin and
# frontend through the page's one script, which runs under its CSP; with script disabled the whole
# list is there. The store is an old one's copy with tests and results written in. The screenshot
# at 800 pixels is kept as tests/cli/report-html-big.png in the build tree.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/setup"
py=${FERRY_PYTHON:-$top_srcdir/.venv/bin/python}
"$py" -c 'import sqlite3' 2>/dev/null || skip_all "no python sqlite3"
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || skip_all "no chromium (Debian's chromium package; scripts/setup installs it)"
plan 27
cp "$top_srcdir/tests/data/stores/schema1.db" s.db
chmod u+w s.db
# 300 crashes of IREE, one operator each (so 300 bugs), with its long diagnostics; 60 of variants
# only, 40 of generated graphs only, 20 where a harvested test fails beside a variant; 30 mismatches
# whose message is one unbroken 400-character word; one operator named at length.
"$py" - s.db <<'PY'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
base = json.loads(c.execute("SELECT record FROM instances WHERE op = 'Ceil'").fetchone()[0])
n = 0
def test(op, origin):
    global n
    n += 1
    r = dict(base, op=op, id="%032x" % (0xb16000 + n))
    if origin == "variant":
        r["variant"] = {"parent": base["id"], "vary": "dtype"}
    elif origin == "graph":
        r["source"] = {"suite": "generate", "seed": 1, "index": n, "generator": "ferry generate"}
    c.execute("INSERT INTO instances(id, library, op, record) VALUES(?, 'onnx', ?, ?)", (r["id"], op, json.dumps(r)))
    return r["id"]
def put(fe, id, outcome, stage=None, exc=None, msg=None):
    c.execute("INSERT OR REPLACE INTO results(frontend, id, outcome, stage, exc_type, message) VALUES(?,?,?,?,?,?)",
              (fe, id, outcome, stage, exc, msg))
iree = ("Error invoking IREE compiler tool iree-compile\nError code: 1\nDiagnostics:\n%s: error: failed "
        "to legalize operation 'torch.operator' that was explicitly marked illegal: %%0 = torch.operator.%s(%%arg0) "
        ": (!torch.vtensor<[3,4,5],f32>) -> !torch.vtensor<[3,4,5],f32> loc(\"<stdin>\":4:10)\n"
        "\n\nInvoked with:\n iree-compile /work/.venv/lib/python3.11/site-packages/iree/compiler/tools/../_mlir_libs/"
        "iree-compile - --iree-input-type=onnx --iree-vm-bytecode-module-output-format=flatbuffer-binary")
for k in range(300):
    op = "Op%03d" % k
    origins = ["harvested"]
    if k < 60:
        origins = ["variant"]
    elif k < 100:
        origins = ["graph"]
    elif k < 120:
        origins = ["harvested", "variant"]
    for origin in origins:
        # The words that tell the bugs apart are letters: a signature reads past numbers and quotes.
        word = "".join(chr(97 + k // 26 ** i % 26) for i in range(3))
        where = "<unknown>:0" if k == 299 else "<stdin>:4:10"  # IREE's two ways of saying where
        put("iree-onnx", test(op, origin), "crash", "compile", "CompilerToolError", iree % (where, word))
long_op = "ai.onnx.preview.training." + "VeryLongOperatorName" * 6
for k in range(30):
    op = long_op if k == 0 else "Mm%02d" % k
    put("tvm-onnx", test(op, "harvested"), "mismatch", msg="output 0: " + "x" * 400)
c.commit()
PY
expect_exit 0 "report --html" -- "$FERRY" report s.db --html page
bugs=$("$FERRY" bugs s.db --json | "$py" -c 'import json, sys; print(len(json.load(sys.stdin)["bugs"]))')
check "hundreds of bugs ($bugs)" -- test "$bugs" -ge 330
# ferry reduce's word on one harvested test of Op200: that bug's tests were reduced;
"$py" - s.db <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE IF NOT EXISTS reductions(frontend TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL,"
          " dir TEXT, nodes_before INTEGER NOT NULL, nodes_after INTEGER NOT NULL, candidates INTEGER NOT NULL,"
          " ops TEXT, frontend_version TEXT, PRIMARY KEY(frontend, id))")
id = c.execute("SELECT id FROM instances WHERE op = 'Op200'").fetchone()[0]
c.execute("INSERT INTO reductions VALUES('iree-onnx', ?, 'reduced', 'r', 3, 1, 2, 'Op200', NULL)", (id,))
# and the metamorphic oracle's, of Op210's mutations
id = c.execute("SELECT id FROM instances WHERE op = 'Op210'").fetchone()[0]
c.execute("INSERT INTO mutations(frontend, id, status) VALUES('iree-onnx', ?, 'reduced')", (id,))
c.commit()
PY
expect_exit 0 "report --html, with a reduction" -- "$FERRY" report s.db --html page
# The page's rows, as its source has them: origin and what failed by operator.
"$py" - page/index.html > rows.txt <<'PY'
import html, re, sys
page = open(sys.argv[1]).read()
for row in re.findall(r'<tr data-frontend="[^"]*" data-origin="([^"]*)">(.*?)</tr>', page):
    cells = [html.unescape(re.sub("<[^>]*>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", row[1])]
    print("%s|%s|%s" % (row[0], cells[7], cells[8][:60]))
PY
check "a row per bug" -- test "$(wc -l < rows.txt)" -eq "$bugs"
contains "a harvested bug says so" "$(grep '|Op250|' rows.txt)" "harvested|Op250|failed to legalize operation 'torch.operator'"
contains "a variant's bug is marked found only by ferry-made tests" "$(grep '|Op010|' rows.txt)" "variant made|"
contains "a generated graph's too" "$(grep '|Op070|' rows.txt)" "graph made|"
contains "a bug that a harvested test shows too is not" "$(grep '|Op110|' rows.txt)" "harvested variant|"
contains "a reduced test's bug says so" "$(grep 'Op200|' rows.txt)" "harvested reduced|"
contains "a reduced mutation's too" "$(grep 'Op210|' rows.txt)" "harvested reduced|"
check "100 bugs only ferry-made tests find" -- test "$(grep -c ' made|' rows.txt)" -eq 100
check "no message leads with its location" -- sh -c '! grep -q "|<stdin>" rows.txt'
contains "nor with an unknown location's error:" "$(grep '|Op299|' rows.txt)" "|Op299|failed to legalize operation"
contains "the bug's entry says it too" "$(cat page/index.html)" "its tests: variant; <b class=\"made\">ferry-made only</b>"

chrome_run() {
	"$chrome" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
		--user-data-dir="$work/chrome" "$@" 2>>chrome.log
}
# The page as it is: its script ran under its CSP (the filter shows, counting every bug).
chrome_run --dump-dom "file://$work/page/index.html" > dom.html || true
check "the page's script ran: the filter shows" -- grep -q '<div id="bug-filter" class="filter">' dom.html
contains "and counts the bugs" "$(cat dom.html)" "<output>$bugs of $bugs shown</output>"
# Script disabled (here by a CSP that lets none run: Chromium's own switch stops --dump-dom too): the
# list is whole, and the filter, which could not work, hidden.
sed "s/script-src 'sha256-[^']*'/script-src 'none'/" page/index.html > page/noscript.html
chrome_run --dump-dom "file://$work/page/noscript.html" > noscript.html || true
check "without script, every bug is listed" -- test "$(grep -c '<tr data-frontend=' noscript.html)" -eq "$bugs"
check "and the filter is hidden" -- grep -q '<div id="bug-filter" class="filter" hidden="">' noscript.html
# A copy that measures itself: the CSP taken off and a probe added after the page's script.
"$py" - page/index.html page/probe.html <<'PY'
import re, sys
page = open(sys.argv[1]).read()
page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
probe = r"""<script>(function(){
var d = document.documentElement, r = {width: d.clientWidth, scroll: d.scrollWidth};
var row = [].filter.call(document.querySelectorAll('table.bugs tbody tr'), function(x) {
  return x.cells[7].textContent === 'Op250'; })[0], cell = row.cells[8], box = cell.getBoundingClientRect();
r.line = cell.textContent.slice(0, 40); r.line_right = Math.round(box.right);
r.line_clipped = cell.scrollWidth > cell.clientWidth;
var table = document.querySelector('table.bugs'), th = table.tHead.rows[0].cells[6], sec = table.parentElement;
r.table_fits = sec.scrollWidth <= sec.clientWidth;
r.line_share = box.width / table.getBoundingClientRect().width;
function column() { return [].map.call(table.tBodies[0].rows, function(x) { return +x.cells[6].textContent; }); }
r.before = column(); th.click(); r.asc = column(); th.click(); r.desc = column();
var f = document.getElementById('bug-filter'), q = f.querySelector('input'), o = f.querySelector('select[name=origin]'),
  fe = f.querySelector('select[name=frontend]');
function shown() { return [].filter.call(document.querySelectorAll('table.bugs tbody tr'),
  function(x) { return !x.hidden; }).length; }
q.value = 'Op01'; q.dispatchEvent(new Event('input')); r.text = shown(); q.value = '';
o.value = 'made'; o.dispatchEvent(new Event('change')); r.made = shown(); o.value = '';
fe.value = 'tvm-onnx'; fe.dispatchEvent(new Event('change')); r.tvm = shown();
var p = document.createElement('pre'); p.id = 'probe'; p.textContent = JSON.stringify(r); document.body.appendChild(p);
})();</script>"""
open(sys.argv[2], "w").write(page.replace("</body>", probe + "</body>"))
PY
for w in 1280 800; do
	chrome_run --window-size=$w,900 --dump-dom "file://$work/page/probe.html" > probe$w.html || true
	sed -n 's/.*<pre id="probe">\(.*\)<\/pre>.*/\1/p' probe$w.html > m$w.json
	echo "# at $w px: $(cut -c1-200 m$w.json)"
	check "no sideways overflow at $w px" -- "$py" -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["scroll"] <= m["width"], m' m$w.json
	check "the decisive part first, inside the window, at $w px" -- "$py" -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["line"].startswith("failed to legalize operation"), m
assert m["line_right"] <= m["width"] and not m["line_clipped"], m' m$w.json
	check "the table fits its section, what failed a quarter of it at least, at $w px" -- "$py" -c '
import json, sys
m = json.load(open(sys.argv[1]))
assert m["table_fits"] and m["line_share"] >= 0.25, m' m$w.json
done
check "sorting by the tests, both ways" -- "$py" -c '
import json
m = json.load(open("m1280.json"))
assert m["before"] != sorted(m["before"]) and m["asc"] == sorted(m["before"]), m["asc"]
assert m["desc"] == sorted(m["before"], reverse=True), m["desc"]'
check "filtering by text, by origin and by frontend" -- "$py" -c '
import json
m = json.load(open("m1280.json"))
assert (m["text"], m["made"], m["tvm"]) == (10, 100, 30), m'
chrome_run --window-size=800,2400 --screenshot="$work/page.png" "file://$work/page/index.html" >/dev/null || true
check "a screenshot" -- test -s page.png
cp page.png "$top_builddir/tests/cli/report-html-big.png" 2>/dev/null || true
finish
