"""CUAD v1 contract search: the contracts, the corpus subset of a run, single-hop and multi-hop questions."""
