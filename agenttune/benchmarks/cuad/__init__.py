"""CUAD v1 contract search: loading the contracts, the corpus subset, single-hop questions, the search tool."""
