"""Multi-hop question synthesis: a typed entity graph over chunks, paths through it, questions from paths,
checks that every hop and the retrieval itself are needed, balancing and a leak-free split."""
