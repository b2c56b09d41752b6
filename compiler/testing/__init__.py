"""``tremorc test``: run conformance-style cases through real generated PySpark jobs."""
