"""Small worked examples of extending agenttune (docs/extend/); tests/test_examples.py runs each one.

Their configs live in ``examples/conf``; add that folder to Hydra's search path to pick them:
``python train.py ... hydra.searchpath=[file://examples/conf]``.
"""
