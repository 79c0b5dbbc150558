#!/usr/bin/env python3
"""Checker for examples/cuba.neuro; the checks and the origin of their ranges are described
in vogels_abbott.py and docs/validation.md."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vogels_abbott  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_cuba.py OUTDIR")
        sys.exit(2)
    sys.exit(vogels_abbott.run("cuba", sys.argv[1]))
