"""The PEG grammars of Tremor's languages, as parsimonious ``.ppeg`` files.

``load_grammar("query", "script")`` concatenates ``query.ppeg`` then ``script.ppeg`` into a
parsimonious ``Grammar``; the first rule of the first file is the default rule. ``load_peg``
gives the same grammar copied into :mod:`compiler.parse.peg`'s classes, which the fast matcher
runs on: loading it from its cache imports neither parsimonious nor ``regex`` (the slow path of
a syntax error loads the parsimonious grammar). Both are cached per name tuple in the process,
and across processes as pickles in this package's ``__pycache__`` (or under
``sys.pycache_prefix``), one file per grammar and form, keyed by a hash of the grammar text,
parsimonious's files, ``compiler/parse/{peg,fastpeg,start_sets}.py`` (sizes, times) and the
Python version: building one takes ~0.03 s (:func:`build_grammar`), loading it ~1 ms. The
cache sits where Python keeps the package's bytecode and is trusted as that bytecode is; it is
not written when Python writes no bytecode, and an unreadable file is rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..parse import fastpeg, peg, start_sets
from ..parse.fastpeg import fast_match, fast_visit, precompute_layouts

if TYPE_CHECKING:
    from parsimonious import Grammar

_HERE = Path(__file__).parent


@cache
def grammar_text(*names: str) -> str:
    """The concatenated text of ``<name>.ppeg`` files, in order."""
    return "\n".join((_HERE / f"{name}.ppeg").read_text(encoding="utf-8") for name in names)


@cache
def load_grammar(*names: str) -> Grammar:
    """A parsimonious Grammar built from ``<name>.ppeg`` files (first file's first rule first)."""
    from parsimonious import Grammar

    text = grammar_text(*names)
    path = _cache_path(names, text, "grammar")
    grammar = _load(path, Grammar)
    if grammar is None:
        grammar = build_grammar(text)
        if not sys.dont_write_bytecode:
            _store(path, grammar)
    return grammar


@cache
def load_peg(*names: str) -> peg.Grammar:
    """:func:`load_grammar`'s grammar as :func:`~compiler.parse.peg.from_parsimonious` copies
    it (read from its own cache file without importing parsimonious)."""
    text = grammar_text(*names)
    path = _cache_path(names, text, "peg")
    grammar = _load(path, peg.Grammar)
    if grammar is None:
        grammar = peg.from_parsimonious(load_grammar(*names))
        precompute_layouts([grammar.default_rule, *grammar.values()])
        if not sys.dont_write_bytecode:
            _store(path, grammar)
    return grammar


def build_grammar(text: str) -> Grammar:
    """``Grammar(text)``, with the rule text parsed by :mod:`~compiler.parse.fastpeg` (the same
    tree as parsimonious', ~3x faster: this runs on every build when the cache cannot be
    written). Rule text the fast matcher does not take goes to ``Grammar`` itself, which words
    the error."""
    from parsimonious import Grammar
    from parsimonious.grammar import RuleVisitor

    tree = fast_match(_rule_grammar().default_rule, text)
    if tree is None:
        return Grammar(text)
    rules, first = fast_visit(RuleVisitor({}), tree)
    grammar = Grammar.__new__(Grammar)  # as Grammar._copy does: the rules, then the default
    super(Grammar, grammar).__init__(rules.items())
    grammar.default_rule = first
    return grammar


@cache
def _rule_grammar() -> peg.Grammar:
    """parsimonious' grammar of rule text, copied for the fast matcher."""
    from parsimonious.grammar import rule_grammar

    return peg.from_parsimonious(rule_grammar)


def _load(path: Path, kind: type) -> Any:
    """The ``kind`` object pickled at ``path``, or None when it cannot be read."""
    try:
        with path.open("rb") as file:
            found = pickle.load(file)
        if isinstance(found, kind):
            return found
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
    return None


def _cache_path(names: tuple[str, ...], text: str, form: str) -> Path:
    spec = find_spec("parsimonious")  # finds the package without importing it
    locations = spec.submodule_search_locations if spec is not None else None
    installed = sorted(Path(next(iter(locations or ()), _HERE)).glob("*.py"))
    # a reinstall or edit changes size or mtime; the matcher's modules compute the choices'
    # layouts the copy stores (see load_peg)
    files = [*installed, *(Path(m.__file__ or "") for m in (peg, fastpeg, start_sets))]
    stats = [(f.stat().st_size, f.stat().st_mtime_ns) for f in files]
    version = f"{stats}{sys.version}"
    key = hashlib.sha256((version + "\0" + text).encode()).hexdigest()[:20]
    folder = _HERE / "__pycache__"
    if sys.pycache_prefix:
        folder = Path(sys.pycache_prefix) / "tremorc-grammar"
    return folder / f"{'+'.join(names)}.{key}.{form}.pickle"


def _store(path: Path, grammar: object) -> None:
    """Write the cache file atomically; a folder that cannot be written is no error."""
    import tempfile  # only when a cache is written (~6 ms of a start-up otherwise)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as file:
            pickle.dump(grammar, file, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(file.name, path)
    except (OSError, pickle.PickleError, RecursionError):
        return
