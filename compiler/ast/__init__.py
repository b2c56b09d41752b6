"""The typed AST of tremor-script, trickle and troy (frozen dataclasses with spans)."""
