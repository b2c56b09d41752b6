"""Network connectors on Spark's Python Data Source API (see :mod:`.datasource`): server
sources listening on the driver, client sinks writing from the executors."""
