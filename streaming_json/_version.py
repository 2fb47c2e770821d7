"""The package's version: the one place it is written (setuptools reads it from here for the metadata)."""

__version__ = "0.3.0"
