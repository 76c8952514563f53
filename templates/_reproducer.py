"""ferry.templates._reproducer: the end of every reproducer's test, after its model and inputs, the
same for each library: the reference run, the frontend's (run_frontend) and ferry_compare's verdict
with the script's ATOL and RTOL, which make the script's exit status: 2 when the reference itself
failed (the script then shows nothing about the frontend), 1 when the frontend raised or disagrees,
0 otherwise. ferry/oracle/reproducer.py defines FRONTEND, OP, ATOL, RTOL and run_frontend above it.

A template says only what is its library's: the lines that compute the reference, what run_frontend
is given, the first input (what ferry_compare breaks ties with) and the reference's name. These are
the template's own source text, never a record's (a record's strings are in the test's literals,
as repr())."""


def tail(reference, frontend_args, first_input, name, failed=None):
    """The test's last lines. reference: the lines that set `reference`, indented four spaces (the
    body of a try); frontend_args: run_frontend's arguments; first_input: the expression of the first
    input, or of None; name: the reference's, as "no bug: F agrees with NAME" says; failed: what
    failed when the reference raised (default: name), as "FAILED itself failed" says."""
    return f'''try:
{reference}
except Exception:
    traceback.print_exc()
    print(f"{failed or name} itself failed: this reproducer shows nothing about {{FRONTEND}}")
    sys.exit(2)
try:
    outputs = run_frontend({frontend_args})
except Exception:
    traceback.print_exc()
    print(f"BUG: {{FRONTEND}} raised")
    sys.exit(1)
problems = ferry_compare(list(outputs), reference, ATOL, RTOL, RANDOM, ties=(OP, {first_input}))
for problem in problems:
    print("BUG:", problem)
if not problems:
    print(f"no bug: {{FRONTEND}} agrees with {name}")
sys.exit(1 if problems else 0)
'''
