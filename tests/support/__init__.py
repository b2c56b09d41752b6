"""What the tests share: paths, real servers, Spark clusters, harnesses."""
