"""Retrieval-augmented search: chunking, retrieval backends behind one interface, question synthesis."""
