"""Native Spark lowering: which tremor-script constructs have an exact Spark Column equivalent.

``predicate`` lowers boolean tests over the event to a small three-valued IR (``NativeIR``,
plain tuples, rendered with ``repr()``) that ``runtime_support.spark.prefilter`` turns into Columns;
``prefilter`` finds the events a program provably drops; ``attach`` adds the pre-filter to a job;
``report`` lists per expression what lowers and what falls back, and why.
"""
