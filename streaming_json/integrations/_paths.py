"""Arguments streamed as values at JSON paths (Gemini's ``partial_args``), written as the JSON text they make.

A provider that streams a call's arguments as fragments, each a value at a JSON path (``$.a.b[0]``, RFC 9535's
normalized paths: ``.name``, ``['name']``, ``[0]``) with ``will_continue`` on the pieces of a string, gives no text.
:class:`ArgumentsWriter` writes the text those fragments make, so that a call reads them as it reads any other
arguments: its ``ToolCallArgumentsStream`` gives the live arguments (immutable partial values, as everywhere else) and
the final ones come from one strict parse of that text.

The text. Fragments that arrive in document order (the order a model writes its arguments) are written as they come:
a member's key and a container's opening the first time the path reaches them, a string's pieces as they arrive,
escaped, its closing quote when a piece without ``will_continue`` (or another path) ends it, and a container's closing
when a path leaves it. Separators are ``json.dumps``' (``", "`` and ``": "``), so that a whole ``args`` that a
provider sends at the end continues the text written. The cost is the pieces' own length and, for each fragment,
the steps of its path: linear.

Out of order. A fragment that text written in order cannot take (a member written before, an index past the next
element, a container where a value was) turns the call to its value: the text so far, closed, is parsed; the
fragment is set at its path (a string piece extends the string there, as for one that arrives in order); the text
becomes ``json.dumps`` of the value, and each later fragment does the same (a cost per fragment that grows with the
arguments, only for a provider that streams out of order). An unreadable path, or a step that cannot apply (a key in
an array), is kept in ``error``: the call ends malformed.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable, Optional, Union

__all__ = ["ArgumentsWriter", "parse_path"]

Step = Union[str, int]

# One step of a normalized path: .name, [index], ['name'] or ["name"].
_STEP = re.compile(r"""\.([^.\[\]'"]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]""")
# json's own string encoder, in C where json has its speedups: a piece costs about a dict lookup, escapes or not.
encode_string: Callable[[str], str] = json.encoder.encode_basestring
_paths: dict[str, Optional[tuple[Step, ...]]] = {}


def parse_path(path: str) -> Optional[tuple[Step, ...]]:
    """The steps of a JSON path (``"$.a.b[0]"``: ``("a", "b", 0)``); None where it cannot be read. Remembered: a
    call's fragments repeat a few paths."""
    try:
        return _paths[path]
    except KeyError:
        pass
    steps: Optional[tuple[Step, ...]] = None
    if path.startswith("$"):
        found: list[Step] = []
        position = 1
        while position < len(path):
            match = _STEP.match(path, position)
            if match is None:
                break
            name, index, single, double = match.groups()
            if index is not None:
                found.append(int(index))
            elif name is not None:
                found.append(name)
            else:
                quoted = single if single is not None else double
                try:
                    found.append(json.loads('"' + quoted.replace("\\'", "'").replace('"', '\\"') + '"'))
                except ValueError:
                    break
            position = match.end()
        else:
            steps = tuple(found)
    if len(_paths) < 1024:
        _paths[path] = steps
    return steps


def escaped(piece: str) -> str:
    """A piece of a string as it goes between the quotes of JSON text (``json.dumps``' escapes, non-ASCII as is)."""
    return encode_string(piece)[1:-1]


def scalar_text(value: Any) -> str:
    """A number, a boolean or null as JSON text; a whole number as an integer (providers send numbers as doubles:
    ``3.0`` is the ``3`` the model wrote); not a number as ``NaN``, which the strict parse refuses."""
    if value is None or type(value) is bool:
        return json.dumps(value)
    if type(value) is float:
        if not math.isfinite(value):
            return "NaN"
        if value.is_integer() and abs(value) < 2**53:
            return str(int(value))
    return json.dumps(value)


class _Frame:
    """An open container of the text: its kind, how many members or elements it has, and their keys (an object)."""

    __slots__ = ("closing", "count", "keys")

    def __init__(self, closing: str) -> None:
        self.closing = closing
        self.count = 0
        self.keys: Optional[set[str]] = set() if closing == "}" else None


class ArgumentsWriter:
    """The JSON text of one call's arguments, from fragments at JSON paths. :meth:`write` returns the text a fragment
    adds, or None where the text starts over (out of order): then :meth:`dump` gives the whole text. :meth:`close`
    returns the text that ends the arguments."""

    def __init__(self) -> None:
        self._frames = [_Frame("}")]  # the arguments object, opened by the text of the first fragment
        self._steps: list[Step] = []  # the path of each open container below the root
        self.string_path: Optional[str] = None
        """The path (as the provider wrote it) of the string left open by a piece with ``will_continue``."""
        self._string_steps: Optional[tuple[Step, ...]] = None
        self._value: Any = None  # out of order: the arguments as a value, and the text is its dump
        self._pending: Optional[tuple[str, tuple[Step, ...], Any, bool]] = None  # the fragment out of order
        self.error: Optional[str] = None
        """Why the fragments do not make arguments (an unreadable path, a step that does not fit), or None."""

    def write(self, path: Any, value: Any, is_string: bool, will_continue: bool) -> Optional[str]:
        """The text that a fragment adds: ``value`` at ``path``, a piece of a string (``is_string``) that goes on where
        ``will_continue``; None where the text starts over (:meth:`dump`)."""
        steps = parse_path(path) if isinstance(path, str) else None
        if not steps:
            if self.error is None:
                self.error = f"a fragment at a path that is not a member of the arguments: {path!r}"
            return ""
        if self._value is not None:
            self._set(steps, value, is_string)
            return None
        out = []
        if self.string_path is not None:
            if is_string and steps == self._string_steps:
                if will_continue:
                    return escaped(value)
                self.string_path = self._string_steps = None
                return escaped(value) + '"'
            out.append('"')
            self.string_path = self._string_steps = None
        frames, open_steps = self._frames, self._steps
        if not frames:  # the arguments were closed (whole ones came): the rest goes through their value
            self._pending = ("", steps, value, is_string)
            return None
        common = 0
        parent = len(steps) - 1
        while common < len(open_steps) and common < parent and open_steps[common] == steps[common]:
            common += 1
        while len(open_steps) > common:
            out.append(frames.pop().closing)
            open_steps.pop()
        for depth in range(common, len(steps)):
            step, frame = steps[depth], frames[-1]
            if frame.keys is not None:
                if type(step) is not str or step in frame.keys:
                    self._pending = ("".join(out), steps, value, is_string)
                    return None
                frame.keys.add(step)
                out.append(f"{', ' if frame.count else ''}{json.dumps(step, ensure_ascii=False)}: ")
            else:
                if type(step) is not int or step != frame.count:
                    self._pending = ("".join(out), steps, value, is_string)
                    return None
                if frame.count:
                    out.append(", ")
            frame.count += 1
            if depth < parent:
                opening = "{" if type(steps[depth + 1]) is str else "["
                out.append(opening)
                frames.append(_Frame("}" if opening == "{" else "]"))
                open_steps.append(step)
        if is_string:
            out.append('"' + escaped(value))
            if will_continue:
                self.string_path, self._string_steps = path, steps
            else:
                out.append('"')
        else:
            out.append(scalar_text(value))
        return "".join(out)

    def dump(self, text: str) -> str:
        """The whole text after :meth:`write` returned None (``text``: the text so far): the arguments as a value,
        with the fragment set at its path, dumped."""
        if self._pending is not None:
            written, steps, value, is_string = self._pending
            self._pending = None
            if self._value is None:
                closed = text + written + self.close()
                try:
                    self._value = json.loads(closed) if closed.strip() else {}
                except ValueError:  # pragma: no cover - the text written is valid JSON once closed
                    self._value = {}
            self._set(steps, value, is_string)
        return json.dumps(self._value if self._value is not None else {}, ensure_ascii=False)

    def close(self) -> str:
        """The text that ends the arguments: the open string's quote, the open containers' closings."""
        out = '"' if self.string_path is not None else ""
        self.string_path = self._string_steps = None
        out += "".join(frame.closing for frame in reversed(self._frames))
        self._frames, self._steps = [], []
        return out

    def whole(self, arguments: Any) -> str:
        """The text of whole arguments a provider sent (``args``): the text from now on; fragments after them go
        through their value."""
        self._frames, self._steps = [], []
        self.string_path = self._string_steps = None
        self._value = arguments if isinstance(arguments, dict) else {}
        return json.dumps(arguments, ensure_ascii=False)

    def _set(self, steps: tuple[Step, ...], value: Any, is_string: bool) -> None:
        """Set ``value`` at ``steps`` of the arguments' value (a string piece extends the string there)."""
        node = self._value
        for depth, step in enumerate(steps):
            if isinstance(node, dict) and type(step) is str:
                keys: Any = step
            elif isinstance(node, list) and type(step) is int:
                while len(node) <= step:
                    node.append(None)
                keys = step
            else:
                if self.error is None:
                    self.error = f"a fragment whose path does not fit the arguments: step {step!r}"
                return
            if depth == len(steps) - 1:
                held = node[keys] if isinstance(node, list) else node.get(keys)
                node[keys] = held + value if is_string and isinstance(held, str) else value
                return
            child = node[keys] if isinstance(node, list) else node.get(keys)
            if not isinstance(child, (dict, list)):
                child = node[keys] = {} if type(steps[depth + 1]) is str else []
            node = child
