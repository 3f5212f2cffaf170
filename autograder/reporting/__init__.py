"""Reporting stage: renderers from the immutable result model to files people read or upload."""
