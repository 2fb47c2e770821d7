"""``ModelStream``: typed partial values of JSON text that arrives in pieces (``_items``: arrays of them).

How a piece is read. The parser (``done_events=True``, no set/append changes) reports every value the piece
completed. Each completed value is validated once, at its place in the type: a scalar alone against its annotation, a
container whole (its validated children standing in for their plain values where validation cannot tell the
difference), and the result is recorded in the frame of its parent, an open container. Then, if the parser's snapshot
changed, the open path is rebuilt from the frames: each open container's completed members are already typed, so
rebuilding costs what the parser's own snapshot costs, the open path and the open string, never the document. The
parser's copy-credit rule (a large open path is copied only as often as the text pays for) carries over.
"""

from __future__ import annotations

import json
from typing import Any, Generic, Optional, TypeVar, overload

from pydantic import ValidationError

from .._backend import StreamingJsonParser
from .._repair import repair_json
from .._shared import ABSENT, MISSING, REPORT_DEPTH_LIMIT, Key, Path, Piece, continuation
from ._coerce import Repairs, align, read_text
from ._nodes import Done, Frame, Node, Opaque, dumps, validated
from ._plan import adapter, plan
from ._result import ModelResult

__all__ = ["ModelStream"]

T = TypeVar("T")

_CONTAINERS = (dict, list)
_WHOLE = (Done, Opaque)  # nodes of containers read whole once complete


class ModelStream(Generic[T]):
    """Typed partial values of one JSON text arriving in pieces, for a pydantic model or any type ``TypeAdapter``
    takes (``list[Model]``, ``dict[str, Model]``, a ``TypedDict``, a dataclass).

    ``append(piece)`` returns the partial value so far: None before the root starts; for a model, an instance of its
    partial twin (:func:`partial_twin`: the same fields, each None until read) while it streams, and an instance of
    the model itself once it is complete and valid, reused from then on (a part whose type holds a
    ``Stream.with_state()`` field stays in its partial type, wrappers and all, until the whole value completes); the
    same object as before where a piece changed nothing shown. Strings grow as they stream, except where the
    type is a literal, an enum or a constrained string; numbers and booleans show once complete; a value never
    changes type. Completed parts are validated once; an invalid one stays partial and its error goes to
    ``errors``. ``finish()`` validates the complete text once, strictly.

    Streaming policies in the type (``Annotated[T, Stream.done()]``, ...: :class:`Stream`) say what a place shows
    while it streams.

    ``coerce=True`` reads what models write as the schema says (strings to numbers and booleans, one value to a
    one-item list, enum values by case or unambiguous prefix, an object in a markdown fence or prose, comments,
    trailing commas, Python literals) and names every repair: ``repairs`` while it runs, ``ModelResult.repairs`` at
    the end. A value that fits the schema is never changed.

    ``parser_class`` picks the parser (a backend's ``StreamingJsonParser``; by default the package's); it reads
    stably (``stable=True``: a value once shown stays shown), or with the reference's reading (``stable=False``).
    """

    __slots__ = (
        "type_",
        "errors",
        "_root",
        "_parser_class",
        "_stable",
        "_parser",
        "_read",
        "_take_snapshot",
        "_frames",
        "_open_member",
        "_snapshot",
        "_value",
        "_done",
        "_root_raw",
        "_chunks",
        "_text",
        "_bytes",
        "_coerce",
        "repairs",
        "_repairs_seen",
    )

    type_: Any
    """The type the stream reads (the constructor's argument)."""
    errors: list[tuple[Path, BaseException]]
    """``(path, error)`` for every completed part that failed validation, in the order they completed; paths are
    JSON keys and indices. A part whose failure is explained by a failed part inside it is not listed again."""
    repairs: Repairs
    """With ``coerce=True``, ``(path, kind)`` for every repair made to a completed part so far (kinds:
    ``string_to_int``, ``single_to_list``, ``enum_case``, ...); the repairs of the text itself (a fence, comments)
    are in ``finish()``'s result."""

    @overload
    def __init__(
        self, type_: type[T], *, parser_class: Any = None, stable: bool = True, coerce: bool = False
    ) -> None: ...

    @overload
    def __init__(
        self: ModelStream[Any], type_: Any, *, parser_class: Any = None, stable: bool = True, coerce: bool = False
    ) -> None: ...

    def __init__(self, type_: Any, *, parser_class: Any = None, stable: bool = True, coerce: bool = False) -> None:
        self.type_ = type_
        self._coerce = coerce
        adapter(type_)  # a type pydantic cannot validate fails here, not in the middle of a stream
        self._root: Node = plan(type_)
        self._parser_class = parser_class if parser_class is not None else StreamingJsonParser
        self._stable = stable
        self._start()

    def _start(self) -> None:
        options: dict[str, Any] = {"prose": True} if self._coerce else {}  # an object in a fence or in prose
        self._parser = self._parser_class(changes=False, done_events=True, stable=self._stable, **options)
        self._read = self._parser.append
        self._take_snapshot = self._parser.snapshot
        self.errors = []
        self.repairs = []
        self._repairs_seen: set[Any] = set()
        self._frames: list[Frame] = []
        # The innermost open value of the last walk, as (frame, slot, what it showed): what a rebuild shows there.
        self._open_member: Optional[tuple[Frame, Any, Any]] = None
        self._snapshot: Any = MISSING
        self._value: Any = None
        self._done = False
        self._root_raw: Any = MISSING
        self._chunks: list[Any] = []
        self._text: Any = None
        self._bytes = False

    # --- Public API ---------------------------------------------------------------------------------------------

    @property
    def value(self) -> Any:
        """The partial value after the last piece (what ``append`` returned)."""
        return self._value

    @property
    def plain_value(self) -> Any:
        """The plain JSON value of the text so far, the parser's ``snapshot()`` (``MISSING`` before the root starts):
        for a caller that also shows the untyped value, without a second parser."""
        return self._take_snapshot()

    @property
    def text(self) -> str:
        """The text received so far (bytes pieces decoded as UTF-8)."""
        if self._chunks:
            joined = (b"" if self._bytes else "").join(self._chunks)
            self._text = joined if self._text is None else self._text + joined
            self._chunks = []
        if self._text is None:
            return ""
        return self._text.decode("utf-8", "replace") if self._bytes else self._text  # type: ignore[no-any-return]

    def append(self, piece: Piece) -> Any:
        """Read the next piece (``str`` or UTF-8 bytes-like); return the partial value so far."""
        events = self._read(piece)  # raises TypeError before anything is kept, as the parser does
        if type(piece) is str:
            self._chunks.append(piece)
        elif isinstance(piece, str):  # a str subclass reads as its text
            self._chunks.append(str(piece))
        else:
            self._bytes = True
            self._chunks.append(bytes(piece))  # a copy: a bytearray may be reused by the caller
        if events:
            completed = self._completed
            for event in events:
                completed(event.path, event.value)  # type: ignore[union-attr]
        if self._done:
            return self._value
        snapshot = self._take_snapshot()
        if snapshot is not self._snapshot:
            self._snapshot = snapshot
            self._value = self._build(snapshot)
        elif events and self._parser.open_path_is_small:
            # The same snapshot: the plain value did not change (while the open path is small, the parser's snapshots
            # are fresh, and walking it costs no more than a snapshot's free copy), but values completed (a closing
            # quote or bracket), which changes what shows: a validated instance, a literal. The open path is rebuilt
            # from the frames.
            self._value = self._rebuild()
        # Otherwise the snapshot is shared until the text changes it, or lags behind a large open path until the
        # text pays for a copy: the partial value follows it.
        return self._value

    def replace(self, text: str) -> Any:
        """Take the complete text so far (as some APIs send it): where it continues the text read, only the rest is
        read; otherwise the stream starts over. Returns the partial value."""
        rest = continuation(self.text, text)
        if rest is None:
            self._start()
            rest = text
        return self.append(rest)

    def is_complete(self, *path: Key) -> bool:
        """Whether the value at ``path`` (attribute names or JSON keys, and list indices) is complete, so that it
        will not change. The root is ``is_complete()``."""
        if self._done:
            return _exists(self._root, self._root_raw, path)
        node = self._root
        frames = self._frames
        for depth, slot in enumerate(path):
            if depth >= len(frames) or len(frames[depth].path) != depth:
                return False
            frame = frames[depth]
            node = frame.node
            keys = node.json_keys(slot)
            raws = frame.raws
            for key in keys:
                if type(raws) is list:
                    if type(key) is int and 0 <= key < len(raws):
                        return _exists(node.member(key), raws[key], path[depth + 1 :])
                elif key in raws:
                    return _exists(node.member(key), raws[key], path[depth + 1 :])
            following = frames[depth + 1] if depth + 1 < len(frames) else None
            if following is None or following.path[-1] not in keys:
                return False
        return False  # the path names an open container

    @property
    def partial_errors(self) -> list[tuple[Path, BaseException]]:
        """``(path, error)`` for what validators that asked for partial values (``Stream.partial_values``) raised on
        the last partial value: the value shows as it was read there."""
        found: list[tuple[Path, BaseException]] = []
        for frame in self._frames:
            if frame.partial_errors:
                found.extend(((*frame.path, *_as_path(where)), error) for where, error in frame.partial_errors)
        return found

    def finish(self) -> ModelResult[T]:
        """One strict validation of the complete text (``validate_json``). Strings holding raw control characters or
        stray backslashes are repaired first where that is what makes the text parse, as for tool-call arguments.

        With ``coerce=True``: the text read as JSON where it is not quite (a fence, prose, comments, trailing commas,
        Python literals), the value aligned to the schema, then validated; the result's ``repairs`` name each repair.
        A text cut off inside its value is never complete (``result.complete``), coerced or not, and gives no value."""
        if self._coerce:
            return self._finish_coerced()
        text = self.text
        validator = adapter(self.type_)
        try:
            value = validator.validate_json(text)
        except ValidationError as error:
            repaired = _repaired(text, error)
            if repaired is not None:
                try:
                    return ModelResult(validator.validate_json(repaired), None, text, self.type_)
                except Exception:
                    pass
            return ModelResult(None, error, text, self.type_, complete=self._whole(error))
        except Exception as error:  # what a user's validator raised
            return ModelResult(None, error, text, self.type_)
        return ModelResult(value, None, text, self.type_)

    def _whole(self, error: ValidationError) -> bool:
        """Whether a text that failed validation held a whole value: where it is not JSON, whether the parser read
        its root value to the end (a text cut off inside it never did)."""
        if any(detail["type"] == "json_invalid" for detail in error.errors(include_url=False)):
            return bool(self._parser.done)
        return True

    def _finish_coerced(self) -> ModelResult[T]:
        text = self.text
        validator = adapter(self.type_)
        body, kinds, complete = read_text(text)
        repairs: Repairs = [((), kind) for kind in kinds]
        if body is None or not complete:
            try:  # the error validate_json gives for the text it could read (cut off: an EOF error)
                validator.validate_json(body if body is not None else text)
                error: BaseException = ValueError("the text ends inside its value")
            except Exception as found:
                error = found
            return ModelResult(None, error, text, self.type_, repairs=repairs, complete=False)
        try:
            value = json.loads(body)
        except ValueError:
            value = json.loads(repair_json(body))  # raw control characters in strings: read leniently, as the parser
        value = align(self._root, value, (), repairs)
        try:
            result = validator.validate_python(value)
        except ValidationError:
            try:  # strict places take what JSON gives only from JSON text
                result = validator.validate_json(dumps(value))
            except Exception as error:
                return ModelResult(None, error, text, self.type_, repairs=repairs)
        except Exception as error:
            return ModelResult(None, error, text, self.type_, repairs=repairs)
        return ModelResult(result, None, text, self.type_, repairs=repairs)

    def _repaired_part(self, node: Node, raw: Any, path: Path, outcome: Any) -> Any:
        """With ``coerce=True``: a completed part aligned to its place where it does not fit, validated again; the
        outcome of the repair where it took (its repairs recorded), else ``outcome``."""
        found: Repairs = []
        fixed = align(node, raw, path, found)
        if fixed is raw:
            return outcome
        if type(raw) in _CONTAINERS:
            repaired = node.complete_container(fixed)
            if not repaired[1]:
                return outcome
        else:
            repaired = node.complete_scalar(fixed)
            if not repaired[1] and outcome[1]:
                return outcome
        for repair in found:
            if repair not in self._repairs_seen:
                self._repairs_seen.add(repair)
                self.repairs.append(repair)
        return repaired

    # --- Completed values ---------------------------------------------------------------------------------------

    def _completed(self, path: Path, raw: Any) -> None:
        """A done event: validate the value at its place and record it in its parent's frame."""
        if self._done:
            return
        depth = len(path)
        frames = self._frames
        parent: Optional[Frame] = None
        if depth:
            parent = frames[depth - 1] if depth <= len(frames) else None
            if parent is None or parent.path != path[:-1]:
                parent = self._parent(path)
            node = parent.node.child(path[-1])
        else:
            node = self._root
        own = None
        if depth < len(frames):
            if frames[depth].path == path:
                own = frames[depth]
            del frames[depth:]
        # ``reported``: the error is in ``errors``, here or (for a container whose failure its members explain)
        # further in; a scalar's error counts where its container completes (validators may need other fields).
        coerced = False
        if own is not None:  # an open container: its members are validated already
            value, ok, error = own.node.finalize(own, raw)
            # A container shown only once complete read no member on its own: its repairs are found here.
            if self._coerce and (not ok or isinstance(own.node, _WHOLE)):
                value, ok, error = self._repaired_part(own.node, raw, path, (value, ok, error))
                coerced = ok
            reported = error is not None
            if reported and not _explained(error, own, own.node):  # type: ignore[arg-type]
                self.errors.append((path, error))  # type: ignore[arg-type]
        elif type(raw) is dict or type(raw) is list:  # a container that arrived whole
            container = node.for_container(type(raw) is list)
            value, ok, error = container.complete_container(raw)
            if self._coerce:  # arrived whole: no member was read on its own
                value, ok, error = self._repaired_part(container, raw, path, (value, ok, error))
                coerced = ok
            reported = error is not None
            if reported:
                self.errors.append((path, error))  # type: ignore[arg-type]
        else:
            value, ok, error = node.complete_scalar(raw)
            if self._coerce and type(raw) is not type(value):  # a string read as a number, an enum by its case
                value, ok, error = self._repaired_part(node, raw, path, (value, ok, error))
                coerced = ok
            reported = error is not None and parent is None
            if reported:
                self.errors.append((path, error))  # type: ignore[arg-type]
        if parent is None:  # the whole value: the validated one, never a partial type
            self._done = True
            self._root_raw = raw
            value = validated(value)
            self._value = None if value is ABSENT else value
            return
        if reported:
            parent.failed.append(path[-1])
        if self._open_member is not None and self._open_member[0] is parent and self._open_member[1] == path[-1]:
            self._open_member = None  # the open value of the last walk completed
        more = parent.node.add(parent, path[-1], raw, value, ok, node)
        parent.changed = True
        if coerced:  # the repaired value, not the text's, goes into the parent's validation
            parent.substitute(path[-1], validated(value), True)
        if more:  # a discriminated union re-read its members as its variant's
            for slot, member_error in more:
                self.errors.append((parent.path + (slot,), member_error))

    def _parent(self, path: Path) -> Frame:
        """The frame of the container holding ``path``, made (with those of its ancestors) where missing."""
        depth = len(path) - 1
        frames = self._frames
        if depth < len(frames) and frames[depth].path == path[:-1]:
            return frames[depth]
        level = 0
        while level < len(frames) and level <= depth and frames[level].path == path[:level]:
            level += 1
        del frames[level:]
        while level <= depth:
            node = self._root if level == 0 else frames[level - 1].node.child(path[level - 1])
            is_list = type(path[level]) is int
            frames.append(Frame(path[:level], node.for_container(is_list), is_list))
            level += 1
        return frames[depth]

    # --- Partial values -----------------------------------------------------------------------------------------

    def _build(self, snapshot: Any) -> Any:
        if snapshot is MISSING:
            return None
        if type(snapshot) in _CONTAINERS:
            value = self._open(0, self._root, snapshot, ())
        else:
            value = self._root.open_scalar(snapshot)
            if _unchanged(value, self._value):  # an open root string the piece did not change
                return self._value
        return None if value is ABSENT else value

    def _open(self, depth: int, node: Node, raw: Any, path: Path) -> Any:
        """The partial value of the open container ``raw`` at ``path``, from its frame and its open member."""
        frames = self._frames
        is_list = type(raw) is list
        if depth < len(frames) and (depth == 0 or frames[depth].path[-1] == path[-1]):
            frame = frames[depth]
        else:
            del frames[depth:]
            frame = Frame(path, node.for_container(is_list), is_list)
            frames.append(frame)
        node = frame.node
        raws = frame.raws
        slot: Any = None
        if is_list:
            if len(raw) > len(raws):
                slot = len(raw) - 1
        elif len(raw) > len(raws):  # a new member: the last key
            slot = next(reversed(raw))
        elif raw:
            for key, member in raw.items():  # a repeated key's new value replaced a completed one
                if raws.get(key, ABSENT) is not member:
                    slot = key
                    break
        if slot is None:
            del frames[depth + 1 :]
            self._open_member = None
            return _partial(frame, None, ABSENT)
        member = raw[slot]
        child = node.child(slot)
        if type(member) in _CONTAINERS and depth + 1 < REPORT_DEPTH_LIMIT:
            value = self._open(depth + 1, child, member, path + (slot,))
        else:  # the innermost open value: a string, a word, or a container too deep to follow
            del frames[depth + 1 :]
            value = ABSENT if type(member) in _CONTAINERS else child.open_scalar(member)
            self._open_member = (frame, slot, value)
        return _partial(frame, slot, value)

    def _rebuild(self) -> Any:
        """The partial value from the frames and the open value of the last walk, where the text completed values
        but changed nothing else."""
        frames = self._frames
        if not frames:
            return self._value
        slot: Any = None
        value = ABSENT
        if self._open_member is not None and self._open_member[0] is frames[-1]:
            _, slot, value = self._open_member
        for frame in reversed(frames):
            value = _partial(frame, slot, value)
            slot = frame.path[-1] if frame.path else None
        return None if value is ABSENT else value


def _partial(frame: Frame, slot: Any, value: Any) -> Any:
    """The partial value of the open container of ``frame`` with ``value`` open at ``slot``: the same object as the
    last one where nothing it shows changed (no member completed, the same open value), or where the new one is
    equal to it, so that a caller sees a new object only when the value changed. (This runs for each open container
    on every piece: the tests are inline.)"""
    last = frame.shown
    if last is MISSING:
        built = frame.node.partial(frame, slot, value)
        frame.shown_slot = slot
    elif frame.changed or slot != frame.shown_slot:  # a member completed, or another one opened
        built = frame.node.partial(frame, slot, value)
        if _equal(built, last):
            built = last  # a completed member that shows as it showed while open (a string's closing quote)
        frame.shown_slot = slot
        frame.changed = False
    else:
        member = frame.shown_member
        if value is member or (type(value) is str and type(member) is str and value == member):
            return last
        built = frame.node.partial(frame, slot, value)
    frame.shown = built
    frame.shown_member = value
    return built


def _unchanged(value: Any, last: Any) -> bool:
    """Whether an open value shows what ``last`` showed: the same object, or an equal string."""
    return value is last or (type(value) is str and type(last) is str and value == last)


def _equal(value: Any, last: Any) -> bool:
    """Whether two partial values of one place show the same: of one type, equal, and a twin with the same fields
    read."""
    if value is last:
        return True
    if type(value) is not type(last):
        return False
    if type(value) in _CONTAINERS:
        return bool(value == last)
    state = getattr(value, "__dict__", None)
    if state is None:
        return bool(value == last)
    return bool(
        state == last.__dict__
        and getattr(value, "__pydantic_fields_set__", None) == getattr(last, "__pydantic_fields_set__", None)
        and getattr(value, "__pydantic_extra__", None) == getattr(last, "__pydantic_extra__", None)
    )


def _exists(node: Node, raw: Any, path: tuple[Any, ...]) -> bool:
    """Whether ``path`` (names or keys, indices) leads somewhere inside the completed value ``raw``."""
    for slot in path:
        if type(raw) is list:
            if type(slot) is not int or not 0 <= slot < len(raw):
                return False
            node = node.member(slot)
            raw = raw[slot]
        elif type(raw) is dict:
            for key in node.json_keys(slot):
                if key in raw:
                    node = node.member(key)
                    raw = raw[key]
                    break
            else:
                return False
        else:
            return False
    return raw is not MISSING


def _explained(error: BaseException, frame: Frame, node: Node) -> bool:
    """Whether every error inside ``error`` lies in a member whose own error was recorded."""
    if not frame.failed or not isinstance(error, ValidationError):
        return False
    failed = set(frame.failed)
    for detail in error.errors(include_url=False):
        location = detail["loc"]
        if not location:
            return False
        first = location[0]
        if first not in failed and not failed.intersection(node.json_keys(first)):
            return False
    return True


def _as_path(where: Any) -> Path:
    return where if type(where) is tuple else (where,)


def _repaired(text: str, error: ValidationError) -> Optional[str]:
    """The repaired text, where the text is invalid JSON and repairing its strings changes it."""
    if any(detail["type"] != "json_invalid" for detail in error.errors(include_url=False)):
        return None
    repaired = repair_json(text)
    return repaired if repaired != text else None
