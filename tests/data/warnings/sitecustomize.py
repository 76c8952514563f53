"""For tests/cli/warnings-log.sh: a library that warns in ferry's own process (with
WARNLOG_TEST_PARENT set, which a harvested test does not see), when ferry's harvest imports its
harvesters, as torch and keras warn when they are imported."""

import os
import sys

if os.environ.get("WARNLOG_TEST_PARENT"):

    def _warn_on_import(event, args):
        if event == "import" and args[0] == "ferry.extract":
            import warnings

            warnings.warn("a library's warning in ferry's own process", FutureWarning, stacklevel=2)

    sys.addaudithook(_warn_on_import)
