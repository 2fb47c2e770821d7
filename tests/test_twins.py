"""The twins match: both backends have one public surface, and the compiled core's stub describes it.

Driven by each backend's ``__all__``, so that a name added to the backends is compared as soon as it exists: the
same names, constructor and method signatures, attributes and properties, and the same answer to subclassing. Per
backend, what a user of the change objects relies on: they are immutable, final, equal and hashed by their fields,
pickled and copied whole, and repr'd as their constructor call; the parsers refuse to be pickled or copied rather
than share their state. ``stubtest`` holds ``_core.pyi`` to the compiled module.
"""

from __future__ import annotations

import copy
import functools
import inspect
import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

import streaming_json
from streaming_json import _shared

from .backends import AVAILABLE_BACKENDS, NO_COMPILED_CORE, is_compiled, needs_both_backends

# Sample constructor arguments by the pure backend's annotation of the parameter; a new annotation needs a sample.
SAMPLES: dict[str, tuple[Any, Any]] = {  # two unequal samples of each
    "Path": (("items", 0, "name"), ("items", 1)),
    "Any": ("value", 2.5),  # hashable, for the hash checks; a nested value is checked on its own
    "str": ("text", "more text"),
    "bool": (True, False),
    "int": (7, 8),
}
# Arguments that the annotation rules out, for the constructor to refuse with TypeError.
WRONG_TYPES: dict[str, list[Any]] = {"Path": [["items", 0], None, "items"], "str": [b"text", None, 3]}

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)

# Where the backends still differ, pending an edit to a backend module (issue 9): (backend, check) -> the difference,
# with backend "both" for a difference between them. Strict: the edit that removes a difference removes its entry.
PENDING: dict[tuple[str, str], str] = {}


# --- Helpers -------------------------------------------------------------------------------------------------------


def backend_name(backend: ModuleType) -> str:
    return "cython" if is_compiled(backend) else "python"


def expect_pending(request: pytest.FixtureRequest, backend: ModuleType, check: str) -> None:
    difference = PENDING.get((backend_name(backend), check))
    if difference is not None:
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"pending a backend edit: {difference}"))


def exported(module: ModuleType) -> list[str]:
    """The public names of a backend module: its ``__all__``, or where it has none, the public names it defines."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            name
            for name, value in vars(module).items()
            if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
        ]
    return sorted(names)


def exported_classes(module: ModuleType) -> dict[str, type]:
    return {name: value for name in exported(module) if isinstance(value := getattr(module, name), type)}


def change_classes(module: ModuleType) -> dict[str, type]:
    """The concrete change classes (``JsonChange`` subclasses other than ``JsonChange`` itself)."""
    base = module.JsonChange
    return {name: cls for name, cls in exported_classes(module).items() if issubclass(cls, base) and cls is not base}


def is_final(cls: type) -> bool:
    try:
        type("Subclass", (cls,), {})
    except TypeError:
        return True
    return False


Shape = tuple[tuple[str, str, Any], ...]  # (name, kind, default) a parameter: what a caller sees of a signature


def shape(signature: inspect.Signature, drop_self: bool = False) -> Shape:
    parameters = list(signature.parameters.values())
    if drop_self and parameters and parameters[0].name == "self":
        parameters = parameters[1:]
    return tuple((p.name, p.kind.name, p.default) for p in parameters)


def constructor_shape(cls: type) -> Shape:
    """The constructor's signature as ``inspect`` reads it: from the pure class's ``__init__``, and from the
    compiled class's ``__text_signature__`` (the first lines of its docstring, ``Name(...)\n--\n\n``)."""
    return shape(inspect.signature(cls))


def sample_arguments(cls: type, which: int = 0) -> dict[str, Any]:
    """Arguments for a constructor of the pure backend's class of that name, by its annotations."""
    pure_class = getattr(AVAILABLE_BACKENDS["python"], cls.__name__)
    arguments = {}
    for name, parameter in inspect.signature(pure_class).parameters.items():
        if parameter.default is not inspect.Parameter.empty:
            continue
        annotation = str(parameter.annotation)
        assert annotation in SAMPLES, f"{cls.__name__}({name}: {annotation}): add a sample to SAMPLES"
        arguments[name] = SAMPLES[annotation][which]
    return arguments


def changes(backend: ModuleType) -> Iterator[tuple[Any, dict[str, Any]]]:
    """One instance of each change class, with the arguments it was made from."""
    for cls in change_classes(backend).values():
        arguments = sample_arguments(cls)
        yield cls(**arguments), arguments


def public_attributes(cls: type) -> dict[str, str]:
    """Each public attribute of a class: ``method``, or ``value`` (a property, a slot or a class attribute)."""
    attributes = {}
    for name in dir(cls):
        if not name.startswith("_"):
            value = inspect.getattr_static(cls, name)
            attributes[name] = "value" if inspect.isdatadescriptor(value) or not callable(value) else "method"
    return attributes


# --- One surface ---------------------------------------------------------------------------------------------------


@needs_both_backends
def test_both_backends_export_the_same_names() -> None:
    assert exported(AVAILABLE_BACKENDS["cython"]) == exported(AVAILABLE_BACKENDS["python"])


def test_the_package_exports_every_name_of_its_backend() -> None:
    in_use = AVAILABLE_BACKENDS.get(streaming_json.BACKEND) or AVAILABLE_BACKENDS["python"]
    for name in exported(in_use):
        assert name in streaming_json.__all__, name
        assert getattr(streaming_json, name) is getattr(in_use, name), name


@needs_both_backends
def test_constructors_and_methods_have_the_same_signatures() -> None:
    compiled, pure = AVAILABLE_BACKENDS["cython"], AVAILABLE_BACKENDS["python"]
    differences: dict[str, str] = {}
    for name, pure_class in exported_classes(pure).items():
        compiled_class = getattr(compiled, name)
        expected = constructor_shape(pure_class)
        actual = constructor_shape(compiled_class)
        if actual != expected:
            differences[f"{name}()"] = f"{actual} (compiled) != {expected} (pure)"
        for attribute, kind in public_attributes(pure_class).items():
            if kind != "method":
                continue
            expected = shape(inspect.signature(getattr(pure_class, attribute)), drop_self=True)
            actual = shape(inspect.signature(getattr(compiled_class, attribute)), drop_self=True)
            if actual != expected:
                differences[f"{name}.{attribute}()"] = f"{actual} (compiled) != {expected} (pure)"
    pending = {check for backend, check in PENDING if backend == "both"}
    assert {check: text for check, text in differences.items() if check not in pending} == {}
    assert pending <= set(differences), f"fixed, so remove from PENDING: {sorted(pending - set(differences))}"


def test_every_class_has_the_signature_it_accepts(backend: ModuleType) -> None:
    """``inspect.signature`` (and so ``help()``) reads each class's constructor on both backends, and it says what
    the constructor accepts: a parameter it shows as keyword-only refuses to be passed by position, and the
    parser's defaults are the rules' own."""
    for name, cls in exported_classes(backend).items():
        parameters = inspect.signature(cls).parameters  # raised ValueError on the compiled classes
        assert "self" not in parameters, name
        keyword_only = [p.name for p in parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
        if keyword_only:
            with pytest.raises(TypeError):
                cls(True)
    parser_parameters = inspect.signature(backend.StreamingJsonParser).parameters
    assert parser_parameters["report_depth"].default == _shared.REPORT_DEPTH_LIMIT
    assert [p.name for p in parser_parameters.values()] == [
        "changes",
        "done_events",
        "report_depth",
        "prose",
        "source_paths",
        "stable",
        "items_at",
    ]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parser_parameters.values())
    rendered = str(inspect.signature(backend.StreamingJsonParser))
    assert rendered.startswith("(*, changes"), rendered


@needs_both_backends
def test_classes_have_the_same_attributes_and_properties() -> None:
    compiled, pure = AVAILABLE_BACKENDS["cython"], AVAILABLE_BACKENDS["python"]
    for name, pure_class in exported_classes(pure).items():
        assert public_attributes(getattr(compiled, name)) == public_attributes(pure_class), name


@needs_both_backends
def test_subclassing_has_one_answer() -> None:
    compiled, pure = AVAILABLE_BACKENDS["cython"], AVAILABLE_BACKENDS["python"]
    classes = exported_classes(pure)
    assert {name: is_final(getattr(compiled, name)) for name in classes} == {
        name: is_final(cls) for name, cls in classes.items()
    }


@needs_both_backends
def test_equal_changes_look_alike_on_both_backends() -> None:
    pure_changes = {type(change).__name__: change for change, _ in changes(AVAILABLE_BACKENDS["python"])}
    for change, _ in changes(AVAILABLE_BACKENDS["cython"]):
        twin = pure_changes[type(change).__name__]
        assert (repr(change), hash(change), change.kind) == (repr(twin), hash(twin), twin.kind)


# --- The change objects, on each backend ---------------------------------------------------------------------------


def test_change_classes_are_final(backend: ModuleType) -> None:
    # Changes are values: a subclass could not add state (they are immutable) and would only break equality.
    assert change_classes(backend), "no change classes found"
    for name, cls in change_classes(backend).items():
        assert is_final(cls), f"{name} can be subclassed"


def test_json_change_is_abstract(backend: ModuleType, request: pytest.FixtureRequest) -> None:
    expect_pending(request, backend, "abstract")
    message = "^JsonChange is abstract: use SetChange, AppendChange, DoneChange or SourceChange$"
    with pytest.raises(TypeError, match=message):
        backend.JsonChange()


def test_each_change_kind_is_its_own(backend: ModuleType) -> None:
    kinds = [change.kind for change, _ in changes(backend)]
    assert all(isinstance(kind, str) for kind in kinds) and len(set(kinds)) == len(kinds), kinds


def test_changes_are_immutable(backend: ModuleType) -> None:
    for change, arguments in changes(backend):
        for name in [*arguments, "kind", "new_attribute"]:
            with pytest.raises(AttributeError):
                setattr(change, name, "changed")
            with pytest.raises(AttributeError):
                delattr(change, name)
        assert {name: getattr(change, name) for name in arguments} == arguments


def test_changes_are_equal_and_hashed_by_their_fields(backend: ModuleType) -> None:
    all_changes = list(changes(backend))
    for change, arguments in all_changes:
        cls = type(change)
        same = cls(**copy.deepcopy(arguments))
        assert change == same and (change != same) is False and hash(change) == hash(same)
        for name in arguments:  # a change in any one field makes an unequal change
            other = cls(**{**arguments, name: sample_arguments(cls, which=1)[name]})
            assert change != other and (change == other) is False, name
        assert change != (change.kind, *arguments.values()) and change.__eq__(object()) is NotImplemented
        assert all(change != unlike for unlike, _ in all_changes if unlike is not change)
    with pytest.raises(TypeError):  # a list value makes the change unhashable, as a tuple holding it is
        hash(backend.SetChange(("a",), [1]))


def test_changes_pickle_and_copy_whole(backend: ModuleType) -> None:
    nested = backend.SetChange(("items", 0), {"b": [1, None, "\ud83d"], "c": {}})
    for change in [nested, *(change for change, _ in changes(backend))]:
        copies = [pickle.loads(pickle.dumps(change, protocol)) for protocol in PROTOCOLS]
        copies += [copy.copy(change), copy.deepcopy(change)]
        for duplicate in copies:
            assert type(duplicate) is type(change) and duplicate == change


def test_a_change_repr_is_its_constructor_call(backend: ModuleType) -> None:
    for change, arguments in changes(backend):
        fields = ", ".join(f"{name}={value!r}" for name, value in arguments.items())
        assert repr(change) == f"{type(change).__name__}({fields})"


def test_constructors_refuse_arguments_of_the_wrong_type(backend: ModuleType, request: pytest.FixtureRequest) -> None:
    expect_pending(request, backend, "argument types")
    accepted = []
    for cls in change_classes(backend).values():
        pure_parameters = inspect.signature(getattr(AVAILABLE_BACKENDS["python"], cls.__name__)).parameters
        for name, parameter in pure_parameters.items():
            for wrong in WRONG_TYPES.get(str(parameter.annotation), []):
                try:
                    cls(**{**sample_arguments(cls), name: wrong})
                except TypeError:
                    continue
                accepted.append(f"{cls.__name__}({name}={wrong!r})")
    assert not accepted, accepted


# --- The parsers, on each backend ----------------------------------------------------------------------------------


def parser_classes(backend: ModuleType) -> dict[str, type]:
    change_names = set(change_classes(backend)) | {"JsonChange"}
    return {name: cls for name, cls in exported_classes(backend).items() if name not in change_names}


def test_parsers_refuse_to_be_pickled_or_copied(backend: ModuleType, request: pytest.FixtureRequest) -> None:
    # A copy would share the working containers of the open path with the original: refused, on both backends.
    expect_pending(request, backend, "parser copies")
    for cls in parser_classes(backend).values():
        parser = cls()
        attempts: list[Callable[[Any], object]] = [copy.copy, copy.deepcopy]
        attempts += [functools.partial(pickle.dumps, protocol=protocol) for protocol in PROTOCOLS]
        for attempt in attempts:
            with pytest.raises(TypeError, match=rf"^cannot pickle '(streaming_json\._core\.)?{cls.__name__}' object$"):
                attempt(parser)


def test_parser_properties_are_read_only(backend: ModuleType) -> None:
    for cls in parser_classes(backend).values():
        parser = cls()
        for name, kind in public_attributes(cls).items():
            if kind != "method":
                with pytest.raises(AttributeError):
                    setattr(parser, name, getattr(parser, name))
        with pytest.raises(AttributeError):  # no instance dict: a misspelt attribute is an error, not a new one
            parser.new_attribute = 1


def test_parsers_can_be_subclassed(backend: ModuleType) -> None:
    # Unlike the changes, a parser is a tool a caller may wrap (to log, to count pieces): subclasses work.
    parser_class = backend.StreamingJsonParser

    class CountingParser(parser_class):  # type: ignore[misc, valid-type]
        pieces = 0

        def append(self, text: Any) -> Any:
            self.pieces += 1
            return super().append(text)

    parser = CountingParser()
    parser.append('{"a": ')
    parser.append("1}")
    assert parser.pieces == 2 and parser.snapshot() == {"a": 1}


# --- The stub ------------------------------------------------------------------------------------------------------


@pytest.mark.slow  # runs mypy's stubtest
@pytest.mark.skipif(NO_COMPILED_CORE is not None, reason=f"no compiled core to check the stub on: {NO_COMPILED_CORE}")
def test_the_stub_describes_the_compiled_core() -> None:
    pytest.importorskip("mypy.stubtest", reason="mypy is not installed (the test extra installs it on CPython)")
    allowlist = Path(__file__).with_name("stubtest_allowlist.txt")
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "--allowlist", str(allowlist), "streaming_json._core"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
