#!/usr/bin/env python3
"""Checker for models/traub_fi.neuro: check_fi.py traub (see there)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_fi  # noqa: E402

if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_traub_fi.py OUTDIR")
        sys.exit(2)
    sys.exit(check_fi.main("traub", sys.argv[1]))
