# The CLI's version (package.json's "version"); tests/test_version.py keeps them equal.
__version__ = "0.1.0"

# The control protocol major this package speaks (src/version.ts CONTROL_PROTOCOL).
CONTROL_PROTOCOL = 1
