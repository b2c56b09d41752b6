"""The PEG grammars of Tremor's languages, as parsimonious ``.ppeg`` files.

``load_grammar("query", "script")`` concatenates ``query.ppeg`` then ``script.ppeg``; the first
rule of the first file is the default rule. Grammars are cached per name tuple in the process,
and across processes as a pickle in this package's ``__pycache__`` (or under
``sys.pycache_prefix``), keyed by a hash of the grammar text, parsimonious's files (sizes, times)
and the Python version: building one takes ~0.03 s (:func:`build_grammar`), loading it ~1 ms.
The cache sits where Python keeps the package's bytecode and is trusted as that bytecode is; it
is not written when Python writes no bytecode, and an unreadable file is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from functools import cache
from pathlib import Path

import parsimonious
from parsimonious import Grammar
from parsimonious.grammar import RuleVisitor, rule_grammar

from ..parse.fastpeg import fast_match, fast_visit

_HERE = Path(__file__).parent


@cache
def grammar_text(*names: str) -> str:
    """The concatenated text of ``<name>.ppeg`` files, in order."""
    return "\n".join((_HERE / f"{name}.ppeg").read_text(encoding="utf-8") for name in names)


@cache
def load_grammar(*names: str) -> Grammar:
    """A parsimonious Grammar built from ``<name>.ppeg`` files (first file's first rule first)."""
    text = grammar_text(*names)
    path = _cache_path(names, text)
    try:
        with path.open("rb") as file:
            grammar = pickle.load(file)
        if isinstance(grammar, Grammar):
            return grammar
    except (
        OSError,
        pickle.PickleError,
        EOFError,
        ValueError,
        AttributeError,
        ImportError,
        TypeError,
    ):
        pass
    grammar = build_grammar(text)
    if not sys.dont_write_bytecode:
        _store(path, grammar)
    return grammar


def build_grammar(text: str) -> Grammar:
    """``Grammar(text)``, with the rule text parsed by :mod:`~compiler.parse.fastpeg` (the same
    tree as parsimonious', ~3x faster: this runs on every build when the cache cannot be
    written). Rule text the fast matcher does not take goes to ``Grammar`` itself, which words
    the error."""
    tree = fast_match(rule_grammar.default_rule, text)
    if tree is None:
        return Grammar(text)
    rules, first = fast_visit(RuleVisitor({}), tree)
    grammar = Grammar.__new__(Grammar)  # as Grammar._copy does: the rules, then the default
    super(Grammar, grammar).__init__(rules.items())
    grammar.default_rule = first
    return grammar


def _cache_path(names: tuple[str, ...], text: str) -> Path:
    installed = Path(parsimonious.__file__).parent  # a reinstall changes size or mtime
    stats = [(f.stat().st_size, f.stat().st_mtime_ns) for f in sorted(installed.glob("*.py"))]
    version = f"{stats}{sys.version}"
    key = hashlib.sha256((version + "\0" + text).encode()).hexdigest()[:20]
    folder = _HERE / "__pycache__"
    if sys.pycache_prefix:
        folder = Path(sys.pycache_prefix) / "tremorc-grammar"
    return folder / f"{'+'.join(names)}.{key}.grammar.pickle"


def _store(path: Path, grammar: Grammar) -> None:
    """Write the cache file atomically; a folder that cannot be written is no error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as file:
            pickle.dump(grammar, file, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(file.name, path)
    except (OSError, pickle.PickleError, RecursionError):
        return
