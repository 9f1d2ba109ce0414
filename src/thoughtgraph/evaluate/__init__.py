"""Datasets and (later) the evaluation harness."""
