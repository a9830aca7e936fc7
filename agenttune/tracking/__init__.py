"""Run folders, metrics, summaries, trackers and reports."""
