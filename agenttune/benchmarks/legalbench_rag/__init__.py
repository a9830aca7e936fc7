"""LegalBench-RAG: legal retrieval queries with gold source documents, scored by Doc@k."""
