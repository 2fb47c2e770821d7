"""JSON Patch operations from a parser's changes: what a piece did to the value, as RFC 6902 operations a browser
applies, at the cost of the piece.

A parser's ``append()`` already says what each piece changed (a ``set`` of a new or finished value at a path, an
``append`` to an open string). :class:`PatchStream` writes them as JSON Patch (RFC 6902) operations, paths as JSON
Pointers (RFC 6901): ``add`` for a new member or item (the root included), ``replace`` where a value is shown at the
path already (a container reported whole when it closes at ``report_depth``, a duplicate key), and, for a string that
grew, an ``append`` operation, an extension of RFC 6902: ``{"op": "append", "path": "/content", "value": "more"}``. A
stream's operations then add up to the text's size and the work to the text's length. ``strict=True`` keeps to RFC
6902 for appliers that know no other operation (``fast-json-patch``, ``jsonpatch``, AG-UI's ``STATE_DELTA``): a grown
string is a ``replace`` of the whole string so far, so the bytes grow with the square of a long string's length.

What a stream keeps: which paths hold a value (one entry a value, a dict a container), for ``add`` or ``replace``;
the last path's pointer (a long string grows at one path, piece after piece); in strict mode the strings so far.

The changes never take a value back: numbers and literals are reported once they end (the parser shows a pending
number in its snapshots, never in its changes), so applying a stream's operations gives, after every piece, the value
the changes describe, and, once the text is complete, its value. :func:`apply_patch` applies operations in Python (a
server's mirror of the browser's value, the tests); :func:`coalesce` merges the operations of several pieces, as a
writer that sends at most one message per interval does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

from ._shared import MISSING, Key, Path

__all__ = ["PatchStream", "StrictOps", "JsonPatchOp", "pointer", "snapshot_ops", "apply_patch", "coalesce"]

JsonPatchOp = dict[str, Any]
"""One operation: ``{"op": "add" | "replace" | "append", "path": pointer, "value": value}``."""

# A value at a path that holds no other value: a scalar or a string (a container's entry is a dict of its own).
_LEAF: dict[Key, Any] = {}


def _escaped(key: Key) -> str:
    if type(key) is int:
        return str(key)
    text = str(key)
    if "~" in text or "/" in text:
        text = text.replace("~", "~0").replace("/", "~1")
    return text


def pointer(path: Path) -> str:
    """The JSON Pointer (RFC 6901) of a path: ``("files", 0)`` is ``"/files/0"``, the root ``""``."""
    return "".join(["/" + _escaped(key) for key in path])


class PatchStream:
    """The JSON Patch operations of one document's changes, piece by piece: ``ops(parser.append(piece))``.

    Keep one per document (a parser that starts over, a tool call's arguments restarted, wants a new one). ``ops``
    takes the changes of one ``append()`` (``set`` and ``append``; done and source events are skipped) and returns
    the operations, in order; applying them (:func:`apply_patch`, ``applyPatch`` of ``patches.js``) to the value of
    the operations before gives the value the changes describe.

    ``strict=False`` (the default): a grown string is ``{"op": "append", "path": ..., "value": piece}``, the piece
    alone, so the operations of a whole stream add up to the text's size. ``strict=True``: RFC 6902 only, a grown
    string is a ``replace`` of the whole string, quadratic in bytes for a long string (merge pieces first:
    :func:`coalesce`, or a writer's flush interval).
    """

    __slots__ = ("strict", "_root", "_last_path", "_last_pointer", "_strict_ops")

    def __init__(self, *, strict: bool = False) -> None:
        self.strict = strict
        """Whether the operations keep to RFC 6902 (a grown string replaced whole), rather than ``append``."""
        self._root: Optional[dict[Key, Any]] = None  # the paths that hold a value, as nested dicts; None: no value yet
        self._last_path: Path = ()
        self._last_pointer = ""
        self._strict_ops = StrictOps() if strict else None

    def ops(self, changes: Iterable[Any]) -> list[JsonPatchOp]:
        """The operations of one piece's changes (what ``StreamingJsonParser.append()`` returned)."""
        operations: list[JsonPatchOp] = []
        self.extend(operations, changes)
        return operations

    def extend(self, operations: list[JsonPatchOp], changes: Iterable[Any]) -> None:
        """Append the operations of one piece's changes to ``operations``: :meth:`ops` for a source that gathers the
        operations of several pieces (no list of its own a piece)."""
        strict = self._strict_ops
        written = operations if strict is None else []
        for change in changes:
            kind = change.kind
            if kind == "append":
                path = change.path
                if path != self._last_path:
                    self._last_path = path
                    self._last_pointer = pointer(path)
                written.append({"op": "append", "path": self._last_pointer, "value": change.text})
            elif kind == "set":
                written.append(self._set(change.path, change.value))
        if strict is not None:
            operations += strict.ops(written)

    def _set(self, path: Path, value: Any) -> JsonPatchOp:
        entry = {} if type(value) is dict or type(value) is list else _LEAF
        if not path:
            op = "add" if self._root is None else "replace"
            self._root = entry
        else:
            node = self._root
            if node is None:  # a change below a root never set: not from a parser, but read as one
                node = self._root = {}
            for key in path[:-1]:
                child = node.get(key)
                if child is None or child is _LEAF:
                    child = node[key] = {}
                node = child
            key = path[-1]
            op = "replace" if key in node else "add"
            node[key] = entry
        if path != self._last_path:
            self._last_path = path
            self._last_pointer = pointer(path)
        return {"op": op, "path": self._last_pointer, "value": value}


def snapshot_ops(previous: Any, value: Any) -> list[JsonPatchOp]:
    """The RFC 6902 operations (``add``, ``remove``, ``replace``) that take one snapshot to the next, as
    ``jsonpatch.make_patch`` gives them where values only grow along their open path; ``previous`` is ``MISSING``
    before the first (the root replaced). For readers whose values are not the changes' (LangChain's
    ``JsonOutputParser(diff=True)`` shows pending numbers, which no change reports): the time does not grow with the
    document, since the closed parts of two snapshots are the same objects, so only the open path is walked."""
    if previous is MISSING:
        return [{"op": "replace", "path": "", "value": value}]
    operations: list[JsonPatchOp] = []
    pending = [("", previous, value)]
    while pending:
        at, old, new = pending.pop()
        if old is new:
            continue
        if type(old) is dict and type(new) is dict:
            operations += [{"op": "remove", "path": f"{at}/{_escaped(key)}"} for key in old if key not in new]
            for key, item in new.items():
                if key in old:
                    pending.append((f"{at}/{_escaped(key)}", old[key], item))
                else:
                    operations.append({"op": "add", "path": f"{at}/{_escaped(key)}", "value": item})
        elif type(old) is list and type(new) is list:
            common = min(len(old), len(new))
            pending += [(f"{at}/{index}", old[index], new[index]) for index in range(common)]
            operations += [
                {"op": "add", "path": f"{at}/{index}", "value": new[index]} for index in range(common, len(new))
            ]
            operations += [{"op": "remove", "path": f"{at}/{index}"} for index in reversed(range(common, len(old)))]
        elif type(old) is not type(new) or old != new:
            operations.append({"op": "replace", "path": at, "value": new})
    return operations


class StrictOps:
    """RFC 6902 operations of an operation stream with ``append``: a grown string becomes a ``replace`` of the whole
    string so far (for AG-UI's ``STATE_DELTA``, ``fast-json-patch``, ``jsonpatch``). It keeps each string's value by
    pointer: a string is always set whole (``add`` or ``replace``, alone or inside a container's value) before it
    grows, so a stale entry under a replaced container is overwritten before it is read."""

    __slots__ = ("_strings",)

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}

    def ops(self, operations: Iterable[JsonPatchOp]) -> list[JsonPatchOp]:
        """The operations, each ``append`` turned into a ``replace``."""
        strings = self._strings
        written: list[JsonPatchOp] = []
        for operation in operations:
            op, path = operation["op"], operation["path"]
            if op == "append":
                text = strings.get(path, "") + operation["value"]
                strings[path] = text
                written.append({"op": "replace", "path": path, "value": text})
                continue
            if op in ("add", "replace"):
                value = operation["value"]
                if type(value) is str:
                    strings[path] = value
                else:
                    if not path:
                        strings.clear()
                    if type(value) is dict or type(value) is list:
                        _strings_in(value, path, strings)  # a record that came whole (coalesced) holds strings too
            written.append(operation)
        return written


def _strings_in(value: Any, path: str, strings: dict[str, str]) -> None:
    """Every string inside a container, by pointer, into ``strings``."""
    items = value.items() if type(value) is dict else enumerate(value)
    for key, item in items:
        if type(item) is str:
            strings[f"{path}/{_escaped(key)}"] = item
        elif type(item) is dict or type(item) is list:
            _strings_in(item, f"{path}/{_escaped(key)}", strings)


# --- Applying and merging operations -------------------------------------------------------------------------------


def _steps(path: str) -> list[str]:
    if not path:
        return []
    if path[0] != "/":
        raise ValueError(f"a JSON Pointer starts with '/': {path!r}")
    return [step.replace("~1", "/").replace("~0", "~") for step in path[1:].split("/")]


def _copy(value: Any) -> Any:
    """A copy of a value's containers: an applied value is changed in place later, the operation's value never."""
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value


def apply_patch(value: Any, operations: Iterable[JsonPatchOp]) -> Any:
    """Apply JSON Patch operations (``add``, ``replace``, ``remove`` and the ``append`` extension) to ``value``;
    return the new value. Containers of ``value`` are changed in place (the root is new where an operation replaces
    it); the operations' values are copied, never shared. Raises ``ValueError`` for an operation that does not apply
    (a path that does not exist, an unknown ``op``)."""
    for operation in operations:
        op = operation.get("op")
        steps = _steps(operation.get("path", ""))
        if op == "append":
            if not steps:
                if not isinstance(value, str):
                    raise ValueError("append to a value that is not a string")
                value = value + operation["value"]
                continue
            parent, key = _parent(value, steps)
            current = parent[key]
            if not isinstance(current, str):
                raise ValueError(f"append to a value that is not a string at {operation['path']!r}")
            parent[key] = current + operation["value"]
        elif op in ("add", "replace"):
            new = _copy(operation["value"])
            if not steps:
                value = new
                continue
            parent, key = _parent(value, steps, adding=op == "add")
            if type(parent) is list and op == "add":
                parent.insert(key, new)
            else:
                parent[key] = new
        elif op == "remove":
            if not steps:
                value = None
                continue
            parent, key = _parent(value, steps)
            del parent[key]
        else:
            raise ValueError(f"unknown JSON Patch operation: {op!r}")
    return value


def _parent(value: Any, steps: list[str], adding: bool = False) -> tuple[Any, Any]:
    """The container that holds the last step, and the step as its key or index."""
    try:
        for step in steps[:-1]:
            value = value[int(step)] if type(value) is list else value[step]
        last: Any = steps[-1]
        if type(value) is list:
            last = len(value) if adding and last == "-" else int(last)
            if not 0 <= last <= len(value) - (0 if adding else 1):
                raise IndexError(last)
        elif type(value) is dict:
            if not adding and last not in value:
                raise KeyError(last)
        else:
            raise TypeError(type(value).__name__)
    except (LookupError, TypeError, ValueError) as error:
        raise ValueError(f"the path {'/' + '/'.join(steps)!r} does not apply: {error!r}") from None
    return value, last


def coalesce(operations: Iterable[JsonPatchOp]) -> list[JsonPatchOp]:
    """The same change in fewer operations, for a writer that sends several pieces' operations at once.

    A string's run: an ``append`` that follows an operation on the same path that left a string there joins it (an
    ``append`` grows, an ``add`` or ``replace`` takes the longer value), and a ``replace`` that follows an ``add`` or
    ``replace`` on its path takes its place (strict mode's grown strings). Then a container's: an operation on a
    member or an item of a container that the operation just before it added (or that one's containers) is applied
    to that operation's value, a copy, instead of being sent: a record that arrived within the batch goes as one
    ``add`` of the record, near the size of its text. Linear in the operations' size: the pieces of a run are joined
    once, a folded operation is one step into its container. The operations given are not changed."""
    merged: list[JsonPatchOp] = []
    pieces: list[str] = []  # the string values of the run that ends ``merged``, joined when the run ends
    for operation in operations:
        op, value = operation.get("op"), operation.get("value")
        if merged:
            last = merged[-1]
            if last["path"] == operation["path"]:
                if op == "append" and pieces and isinstance(value, str):
                    pieces.append(value)
                    continue
                if op == "replace" and last["op"] in ("add", "replace"):
                    pieces.clear()
                    merged[-1] = {"op": last["op"], "path": last["path"], "value": value}
                    if isinstance(value, str):
                        pieces.append(value)
                    continue
            _join(last, pieces)
        merged.append(dict(operation))
        if op != "remove" and isinstance(value, str):
            pieces.append(value)
    if merged:
        _join(merged[-1], pieces)
    return _fold(merged)


def _fold(operations: list[JsonPatchOp]) -> list[JsonPatchOp]:
    """Apply each operation on a member or an item of a container that the last operation kept added (or holds
    inside its value) to that container, instead of keeping it. Only the last kept operation's containers take
    operations: one that follows another kept operation would be moved before it. The operations' values are
    copied before any is changed (``operations`` are this module's own copies, their values the caller's)."""
    kept: list[JsonPatchOp] = []
    owned: dict[str, Any] = {}  # pointer -> a container in the last kept operation's value (a copy)
    for operation in operations:
        path, op = operation["path"], operation["op"]
        if path and owned and op in ("add", "replace", "append") and _fold_into(owned, path, op, operation["value"]):
            continue
        owned.clear()
        value = operation.get("value")
        if op in ("add", "replace") and (type(value) is dict or type(value) is list):
            operation["value"] = value = _copy(value)
            owned[path] = value
        kept.append(operation)
    return kept


def _fold_into(owned: dict[str, Any], path: str, op: str, value: Any) -> bool:
    """Apply one operation to the owned container that holds its path's last step, if there is one and the
    operation applies there as it would on the client; whether it did."""
    parent_path, _, step = path.rpartition("/")
    container = owned.get(parent_path)
    if container is None:
        return False
    key: Any
    if type(container) is list:
        if step == "-":
            key = len(container)
        elif step.isdigit() and (step == "0" or step[0] != "0"):
            key = int(step)
        else:
            return False
        if not key <= len(container) - (op != "add"):
            return False
    else:
        key = step.replace("~1", "/").replace("~0", "~") if "~" in step else step
        if op != "add" and key not in container:
            return False
    if op == "append":
        if type(container[key]) is not str or type(value) is not str:
            return False
        container[key] += value
        return True
    new = _copy(value)
    if op == "add" and type(container) is list:
        container.insert(key, new)
    else:
        container[key] = new
    if type(new) is dict or type(new) is list:
        owned[path] = new
    return True


def _join(operation: JsonPatchOp, pieces: list[str]) -> None:
    """End a run: the operation's value is its pieces joined."""
    if len(pieces) > 1:
        operation["value"] = "".join(pieces)
    pieces.clear()
