"""``tremorc``: check, build, run and test Tremor programs on Spark.

Every command prints Tremor-style rendered errors and exits 1 on a user error; no Python traceback
reaches the terminal (the :func:`main` wrapper is the last line of defence). ``check``, ``build``
and ``run`` print the program's warnings to stderr as Tremor does (``Warning(<class>): `` blocks,
each followed by a blank line, in source order); warnings never change the exit code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .diagnostics import CompileError, Warning_
from .pipeline import check_program, check_source, compile_path, kind_of, parse, read_source


def _fail(err: CompileError) -> None:
    click.echo(err.render(), err=True)
    sys.exit(1)


def _warn(warnings: tuple[Warning_, ...]) -> None:
    """Tremor's ``format_warnings_with``: each rendered warning, then a blank line, on stderr."""
    for warning in warnings:
        click.echo(warning.render() + "\n", err=True)


def _version() -> str:
    """tremorc's version (setup.cfg's ``version``, as installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tremorc")
    except PackageNotFoundError:  # run from a checkout that is not installed
        import configparser

        config = configparser.ConfigParser()
        config.read(Path(__file__).resolve().parent.parent / "setup.cfg")
        return config.get("metadata", "version", fallback="unknown")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_version(), "--version", prog_name="tremorc", message="%(prog)s %(version)s")
def cli() -> None:
    """Compile Tremor programs (.tremor, .trickle, .troy) into standalone PySpark jobs."""


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def check(files: tuple[Path, ...]) -> None:
    """Parse and check FILES; print Tremor-style errors."""
    failed = 0
    for path in files:
        try:
            _warn(check_program(read_source(path), kind_of(path)).warnings)
        except CompileError as err:
            failed += 1
            click.echo(err.render(), err=True)
    sys.exit(1 if failed else 0)


SCHEMA_HELP = (
    "Spark DDL of the input events (docs/extensions.md): events that fit it "
    "run as native Spark Columns"
)


def _schema(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple | None:
    """``--schema``: the parsed DDL (a usage error names what is wrong). The parser is imported
    only when the option is given: a plain build does not pay for it."""
    if value is None:
        return None
    from .lowering.schema import SchemaError, parse_schema

    try:
        return parse_schema(value)
    except SchemaError as err:
        raise click.BadParameter(str(err)) from None


@cli.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), help="job file (default stdout)")
@click.option("--schema", callback=_schema, metavar="DDL", help=SCHEMA_HELP)
def build(file: Path, output: Path | None, schema: tuple | None) -> None:
    """Compile FILE into a black-formatted PySpark job."""
    try:
        compiled = compile_path(file, output.name if output else "job.py", schema)
    except CompileError as err:
        _fail(err)
        return
    _warn(compiled.warnings)
    job = compiled.job
    if output is None:
        click.echo(job, nl=False)
    else:
        output.write_text(job, encoding="utf-8")


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("file", type=click.Path(path_type=Path))
@click.argument("job_args", nargs=-1, type=click.UNPROCESSED)
@click.option("-i", "--input", "infile", help="JSON lines to read (default stdin)")
@click.option(
    "-o",
    "--output",
    "outfile",
    help="a folder DIR/<port>/ per output port (.troy: the stdio sink's file; default stdout)",
)
@click.option("--ingest-ns", type=click.Choice(["index", "wallclock"]), default="wallclock")
@click.option("-v", "--verbose", is_flag=True, help="show Spark's own output on stderr")
@click.option("--remote", metavar="sc://HOST:PORT", help="run on this Spark Connect server")
def run(
    file: Path,
    infile: str | None,
    outfile: str | None,
    ingest_ns: str,
    verbose: bool,
    remote: str | None,
    job_args: tuple[str, ...],
) -> None:
    """Build FILE and run it on the embedded local Spark (or a Spark Connect server), like
    `tremor run`. Every other option goes to the job as written (`--arg NAME=VALUE`, `--conf`,
    `--master`, `--partitions`, `--stream`, `--checkpoint`, `--trigger`…: see the job's
    `--help`)."""
    try:
        compiled = compile_path(file)
    except CompileError as err:
        _fail(err)
        return
    _warn(compiled.warnings)
    from .testing.loader import load_job

    module = load_job(compiled.job, str(file))
    argv = ["--ingest-ns", ingest_ns]
    if infile:
        argv += ["-i", infile]
    if outfile:
        argv += ["-o", outfile]
    if verbose:
        argv.append("--verbose")
    if remote:
        argv += ["--remote", remote]
    sys.exit(module.main([*argv, *job_args]))


@cli.command("test")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--report", type=click.Path(path_type=Path), help="write a JSON report per case")
@click.option("-k", "pattern", help="only cases whose name contains this text")
@click.option("-q", "--quiet", is_flag=True, help="print failures and the summary only")
def test_cmd(
    paths: tuple[Path, ...], report: Path | None, pattern: str | None, quiet: bool
) -> None:
    """Run conformance-style case folders (or std-lib suites) through generated PySpark jobs."""
    from .testing.batch import run_paths

    results = run_paths(paths, pattern=pattern, echo=click.echo, quiet=quiet, report=report)
    failed = sum(1 for r in results if not r.passed)
    click.echo(f"{len(results) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


@cli.group()
def dbg() -> None:
    """Inspect what the compiler sees."""


@dbg.command("ast")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--checked", is_flag=True, help="dump the tree after the front-end passes")
def dbg_ast(file: Path, checked: bool) -> None:
    """Dump the AST of FILE (span-free, stable text)."""
    from .ast.common import dump

    try:
        source = read_source(file)
        kind = kind_of(file)
        tree = check_source(source, kind) if checked else parse(source, kind)
    except CompileError as err:
        _fail(err)
        return
    click.echo(dump(tree))


@dbg.command("ir")
@click.argument("file", type=click.Path(path_type=Path))
def dbg_ir(file: Path) -> None:
    """Dump what code generation receives for FILE: script ports, pipeline graph or flows."""
    try:
        checked = check_program(read_source(file), kind_of(file))
    except CompileError as err:
        _fail(err)
        return
    click.echo(checked.ir.dump())


@dbg.command("dot")
@click.argument("file", type=click.Path(path_type=Path))
def dbg_dot(file: Path) -> None:
    """The pipeline / flow graph of FILE as Graphviz dot (from the checked IR)."""
    from .codegen.dot import ir_to_dot
    from .pipeline import check_program

    try:
        checked = check_program(read_source(file), kind_of(file))
    except CompileError as err:
        _fail(err)
        return
    click.echo(ir_to_dot(checked.ir, title=file.name))


@dbg.command("plan")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--after", help="print the plan after this phase ('all': after each phase)")
def dbg_plan(file: Path, after: str | None) -> None:
    """The Spark stages of FILE's job (its STAGES): members, partitioning and why
    (compiler/plan, over the job graph that `build` renders)."""
    from .codegen.build import job_input
    from .pipeline import check_program
    from .plan import PHASES, render, run_phases

    names = [name for name, _ in PHASES]
    if after not in (None, "all", *names):
        _fail(CompileError(f"Unknown phase `{after}`: expected all, {', '.join(names)}"))
    try:
        checked = check_program(read_source(file), kind_of(file))
    except CompileError as err:
        _fail(err)
        return
    steps = run_phases(job_input(checked))
    for name, plan in steps:
        if after == "all":
            click.echo(f"== after {name}\n{render(plan)}")
        elif name == (after or names[-1]):
            click.echo(render(plan))


@dbg.command("lowering")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--schema", callback=_schema, metavar="DDL", help=SCHEMA_HELP)
def dbg_lowering(file: Path, schema: tuple | None) -> None:
    """Per expression of FILE's job graph: lowered to native Spark or left to Python, and why."""
    from .lowering.report import lowering_report
    from .pipeline import check_program

    try:
        checked = check_program(read_source(file), kind_of(file))
    except CompileError as err:
        _fail(err)
        return
    click.echo(lowering_report(checked.ir, schema), nl=False)


@cli.command()
@click.option("-o", "--output", type=click.Path(path_type=Path), default="runtime_support.zip")
def bundle(output: Path) -> None:
    """Zip the runtime_support package for `spark-submit --py-files`."""
    from runtime_support.spark.artifacts import runtime_zip

    runtime_zip(output)
    click.echo(str(output))


@cli.command()
def jar() -> None:
    """Build the tremor_json jar for this Spark; print the spark-submit options that load it."""
    from runtime_support.spark.jvm_json import EXTENSION, build_jar, spark_jars_dir

    try:
        path = build_jar(spark_jars_dir())
    except (OSError, RuntimeError) as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
    click.echo(f"--jars {path} --conf spark.sql.extensions={EXTENSION}")


def main() -> None:
    """Console entry point: run the CLI with no traceback ever escaping."""
    try:
        cli(standalone_mode=True)
    except SystemExit:
        raise
    except CompileError as err:
        _fail(err)
    except Exception as err:  # noqa: BLE001 - last line of defence, see module docstring
        click.echo(f"Error: internal error: {type(err).__name__}: {err}", err=True)
        sys.exit(1)
