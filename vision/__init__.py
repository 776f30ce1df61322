"""Frames in, table observations out: sources, detector, card assembly, tracking, zones.

Knows nothing of the rules.
"""
