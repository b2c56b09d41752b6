"""``python -m compiler`` is ``tremorc``."""

from .cli import main

main()
