"""Benchmarks for gitstore: ``python -m bench [NAME...]`` runs every ``bench/bench_*.py``."""
