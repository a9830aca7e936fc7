"""agenttune: run, log, train, evaluate and improve tool-using LLM agents."""
