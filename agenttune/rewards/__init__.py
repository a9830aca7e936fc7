"""Reward functions: plain typed callables (TRL style) that score completions from dataset columns."""
