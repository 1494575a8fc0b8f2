"""SAGE's drop-in experiment with real A-Mem and Mem0 (``mem-gate-experiment``); needs the extra ``experiment``."""
