"""Reading the fields of stream events: dicts, SDK objects (pydantic models and plain objects) and anything else.

Speed. An adapter's work per event must stay small beside the parser's (about 0.3 µs a token piece), so each adapter
reads the common event shape first through the fields' dict: a ``dict`` event itself, or an SDK object's instance
dict, where pydantic models, ``SimpleNamespace`` and plain objects keep their attributes. That dict is read with the
``__dict__`` descriptor's own getter (:func:`instance_dict_reader`), not ``event.__dict__``: an attribute read on a
pydantic model goes through the class's ``__getattr__`` hook and three lookups in the type's attribute cache (which
other code evicts between two events), and costs more than the getter on freshly built SDK events. Asking a pydantic
model for a field it does not have goes through ``BaseModel.__getattr__`` and an exception (about 5 µs), and
``isinstance(event, Mapping)`` is an ABC check; the fast paths do neither. Anything they do not recognise for certain
goes to the general path, which reads every field with :func:`get_field`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

from .._shared import ABSENT

__all__ = ["ReadsEventFields", "get_field", "get_items", "get_key", "get_text", "instance_dict_reader"]


def get_field(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` for a mapping, ``obj.name`` for an object; ``default`` where that is missing or None.

    Reads an object's instance dict first, and a pydantic model's extra fields next, so that a field the object does
    not have costs no exception.
    """
    if type(obj) is dict:
        value = obj.get(name)
    else:
        fields = getattr(obj, "__dict__", None)
        value = ABSENT if fields is None else fields.get(name, ABSENT)
        if value is ABSENT:
            if isinstance(obj, Mapping):
                value = obj.get(name)
            else:
                extra = getattr(obj, "__pydantic_extra__", ABSENT)
                if extra is ABSENT:  # not a pydantic model: a property, a slot or a __getattr__ may answer
                    value = getattr(obj, name, None)
                elif extra and name in extra:
                    value = extra[name]
                else:  # pydantic: only a class attribute (a property) is left; its __getattr__ would only raise
                    value = getattr(obj, name, None) if hasattr(type(obj), name) else None
    return default if value is None else value


# The general paths read a field of the wrong type as absent, so that an event of any shape is read without raising
# (a provider's odd event reaches the adapter as it is: the SDKs build events without validation).


def get_text(obj: Any, name: str) -> Optional[str]:
    """A field that holds text (a type, an id, a name): None where it is missing or not text."""
    value = get_field(obj, name)
    return value if isinstance(value, str) else None


def get_key(obj: Any, name: str, default: Any = None) -> Any:
    """A field that keys a call or a part (an index): ``default`` where it is missing or cannot key a dict."""
    value = get_field(obj, name, default)
    try:
        hash(value)
    except TypeError:
        return default
    return value


def get_items(obj: Any, name: str) -> Sequence[Any]:
    """A field that holds a list (choices, tool calls): empty where it is missing or not a list."""
    value = get_field(obj, name)
    return value if isinstance(value, (list, tuple)) else ()


def instance_dict_reader(obj: Any) -> Callable[[Any], dict[str, Any]]:
    """The getter of ``obj``'s instance dict: the ``__get__`` of the ``__dict__`` descriptor of the class that gave
    ``obj`` one (for an SDK's events, pydantic's ``BaseModel``), which reads the dict of any instance of that class
    with no attribute lookup. It raises ``TypeError`` for an object of any other class on CPython (PyPy's reads any
    object's dict), and for every object if ``obj`` has no instance dict: the fast paths read that as "take the
    general path".
    """
    for klass in type(obj).__mro__:
        descriptor = vars(klass).get("__dict__")
        if descriptor is not None:
            getter = getattr(descriptor, "__get__", None)
            if getter is not None:
                return getter  # type: ignore[no-any-return]
    return _no_instance_dict


def _no_instance_dict(obj: Any) -> dict[str, Any]:
    raise TypeError(f"{type(obj).__name__} objects keep no instance dict")


class ReadsEventFields:
    """Gives the adapters' fast paths ``_fields_of``: the instance-dict getter of the first event object read that
    has an instance dict (:func:`instance_dict_reader`). The events of one stream come from one SDK, so one getter
    reads them all; an event it cannot read takes the general path."""

    def __init__(self) -> None:
        self._fields_of: Callable[[Any], dict[str, Any]] = self._first_fields_of

    def _first_fields_of(self, obj: Any) -> dict[str, Any]:
        reader = instance_dict_reader(obj)
        if reader is not _no_instance_dict:  # a stray None or string first must not turn the fast paths off
            self._fields_of = reader
        return reader(obj)
