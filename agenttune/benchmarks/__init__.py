"""Benchmarks: datasets, harness wiring and metrics (CUAD contract search, LegalBench-RAG, tau2)."""
