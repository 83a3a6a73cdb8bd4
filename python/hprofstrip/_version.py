# SPDX-License-Identifier: Apache-2.0
# The package's version: the project's, HS_VERSION_STRING in
# src/lib/hprof_strip.h (python/tests/test_version.py checks they agree).
__version__ = "0.8.0"
