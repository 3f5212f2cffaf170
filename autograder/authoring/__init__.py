"""Authoring stage: one master per assignment (source/<name>.py) becomes every generated file."""
