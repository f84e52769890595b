"""Support code of bench/compare and bench/launch (Python 3 standard library only)."""
