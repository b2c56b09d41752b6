"""Tremor's connectors, one module per kind (or family): sources that read events into Spark,
sinks that write them out. :mod:`.base` has what they share; the compiler's connector registry
(``compiler.registry.connectors``) names each kind's source and sink factory, and a job's
:class:`~.base.ConnectorSpec` carries those names (:func:`~.base.build_source`)."""
