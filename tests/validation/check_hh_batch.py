#!/usr/bin/env python3
"""Checker for examples/hh_batch.neuro: check_fi.py hh (see there)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_fi  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_hh_batch.py OUTDIR")
        sys.exit(2)
    sys.exit(check_fi.main("hh", sys.argv[1]))
