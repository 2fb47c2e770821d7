"""The tools a model may call, and how a parameter's text becomes JSON by its JSON Schema.

``tools=`` takes names, OpenAI's tool definitions (``{"type": "function", "function": {"name", "parameters"}}``, or
the Responses API's flat ``{"type": "function", "name", "parameters"}``, as dicts or as an SDK's or server's objects
with those attributes), or a mapping of name to the parameters' JSON Schema. Names check calls; schemas type the
parameters of the formats that write values as raw text (Qwen3-Coder, GLM, MiniMax, DeepSeek V3.2, Gemma 4).

A value's types come from its schema as vLLM 0.33 reads them (``vllm/tool_parsers/utils.py``
``extract_types_from_schema``): ``type`` (a name or a list), the types of ``enum`` and ``const`` values, the union
of ``anyOf``/``oneOf``/``allOf``, local ``$ref``\\ s followed; a schema that says nothing is ``string``. The text is
tried as each type in vLLM's order (``coerce_to_schema_type``, ``ORDER``): null, integer, number, boolean, object,
array, string; the first that fits gives the JSON (``_values.typed_json``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Optional

__all__ = ["ToolSchemas", "STRING", "ORDER", "describe_types", "schema_types", "container_schema"]

STRING = frozenset(("string",))
ORDER = ("null", "integer", "number", "boolean", "object", "array", "string")
# The JSON Schema type names and the spellings vLLM also accepts for them (its _TYPE_ALIASES).
_ALIASES = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "bool": "boolean",
    "dict": "object",
    "list": "array",
}


class ToolSchemas:
    """What ``tools=`` says: the names the model may call (None: any), and the parameters' types by tool."""

    __slots__ = ("names", "_schemas", "_types")

    def __init__(self, tools: Any) -> None:
        self.names: Optional[frozenset[str]] = None
        self._schemas: dict[str, Any] = {}
        self._types: dict[tuple[str, str], Optional[frozenset[str]]] = {}
        if tools is None:
            return
        names: list[str] = []
        if isinstance(tools, Mapping) and not _is_tool(tools):
            for name, schema in tools.items():
                names.append(str(name))
                self._schemas[str(name)] = schema
        elif isinstance(tools, (str, bytes)) or not isinstance(tools, Iterable):
            raise TypeError("tools are the tools' names, their definitions, or a mapping of name to JSON Schema")
        else:
            for tool in tools:
                name, schema = _name_and_schema(tool)
                if name is not None:
                    names.append(name)
                    if schema is not None:
                        self._schemas[name] = schema
        self.names = frozenset(names)

    def parameter_schema(self, tool: Optional[str], parameter: str) -> Optional[tuple[Any, Any]]:
        """The schema of ``parameter`` of ``tool`` and the tool's whole schema (the root its ``$ref``s point into),
        or None where no schema says."""
        root = self._schemas.get(tool or "")
        if isinstance(root, Mapping):
            properties = _resolve(root, root).get("properties")
            if isinstance(properties, Mapping) and parameter in properties:
                return properties[parameter], root
        return None

    def parameter_types(self, tool: Optional[str], parameter: str) -> Optional[frozenset[str]]:
        """The JSON types ``parameter`` of ``tool`` may have, or None where no schema says (the tool has none, or
        the parameter is not among its properties)."""
        key = (tool or "", parameter)
        try:
            return self._types[key]
        except KeyError:
            pass
        found: Optional[frozenset[str]] = None
        root = self._schemas.get(tool or "")
        if isinstance(root, Mapping):
            properties = _resolve(root, root).get("properties")
            if isinstance(properties, Mapping) and parameter in properties:
                found = _types_of(properties[parameter], root, 0)
        self._types[key] = found
        return found


def schema_types(schema: Any, root: Any) -> frozenset[str]:
    """The JSON types ``schema`` allows, ``$ref``s into ``root`` followed (``string`` where it says none)."""
    return _types_of(schema, root, 0)


def container_schema(schema: Any, root: Any, depth: int = 0) -> Optional[tuple[str, Mapping[str, Any]]]:
    """The first ``array`` or ``object`` alternative of ``schema`` and its kind (vLLM 0.33
    ``vllm/parser/minimax_m3.py`` ``_container_schema``), or None."""
    schema = _resolve(schema, root)
    declared = schema.get("type")
    for kind in ("array", "object"):
        if declared == kind or (isinstance(declared, list) and kind in declared):
            return kind, schema
    if declared is None:
        if "items" in schema:
            return "array", schema
        if "properties" in schema or "additionalProperties" in schema:
            return "object", schema
    if depth < 16:
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            for branch in branches if isinstance(branches, list) else ():
                found = container_schema(branch, root, depth + 1)
                if found is not None:
                    return found
    return None


def _is_tool(value: Mapping[str, Any]) -> bool:
    return "function" in value or ("type" in value and "name" in value)


def _name_and_schema(tool: Any) -> tuple[Optional[str], Any]:
    """A tool definition's name and parameters' schema: a name alone, an OpenAI Chat tool, a Responses API function
    tool, or a function definition; dicts, or objects with those attributes (an SDK's or a server's models)."""
    if isinstance(tool, str):
        return tool, None

    def get(value: Any, key: str) -> Any:
        return value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)

    function = get(tool, "function")
    holder = function if function is not None else tool
    name = get(holder, "name")
    if not isinstance(name, str):
        return None, None
    schema = get(holder, "parameters")
    if schema is not None and not isinstance(schema, Mapping):
        dump = getattr(schema, "model_dump", None)
        schema = dump() if callable(dump) else None
    return name, schema


def _resolve(schema: Any, root: Any, depth: int = 0) -> Any:
    """``schema`` with a local ``$ref`` followed (``#/$defs/...``), up to a few hops."""
    while isinstance(schema, Mapping) and depth < 16:
        ref = schema.get("$ref")
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            break
        target: Any = root
        for part in ref[2:].split("/") if ref != "#" else ():
            part = part.replace("~1", "/").replace("~0", "~")
            try:
                target = target[int(part)] if isinstance(target, list) else target[part]
            except (KeyError, IndexError, TypeError, ValueError):
                return {}
        schema, depth = target, depth + 1
    return schema if isinstance(schema, Mapping) else {}


def _types_of(schema: Any, root: Any, depth: int) -> frozenset[str]:
    """The JSON types a schema allows (vLLM's ``extract_types_from_schema``, ``$ref`` followed); ``string`` where it
    says nothing of types."""
    schema = _resolve(schema, root)
    found: set[str] = set()
    declared = schema.get("type")
    for name in [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else ():
        if isinstance(name, str):
            name = name.strip().lower()
            found.add(_ALIASES.get(name, name))
    values = [schema["const"]] if "const" in schema else schema.get("enum")
    if isinstance(values, list):
        found.update(_json_type(value) for value in values)
    if depth < 16:
        for keyword in ("anyOf", "oneOf", "allOf"):
            branches = schema.get(keyword)
            if isinstance(branches, list):
                for branch in branches:
                    found.update(_types_of(branch, root, depth + 1))
    found &= set(ORDER)
    return frozenset(found) if found else STRING


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def describe_types(types: frozenset[str]) -> str:
    """The types for a message: ``an integer``, ``a number or null``."""
    article = {"integer": "an integer", "array": "an array", "object": "an object", "null": "null"}
    words = [article.get(name, f"a {name}") for name in ORDER if name in types]
    return " or ".join(words)
