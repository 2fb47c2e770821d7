# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
# cython: embedsignature=True, embedsignature.format=clinic, freethreading_compatible=True
# (The compiler directives live here, and only here, so that every build path — setup.py, an sdist's regeneration,
# ``make annotate`` — compiles the same code.)
"""The compiled core: the pure backend's state machine (see ``_pure.py`` for the reading rules) over code points.

Per character no Python object is made: the text is read from the ``str``'s own buffer by its kind (1, 2 or 4 bytes
a code point), the open containers are a C array of frames, and the open string and the pending word live in C
buffers. Python objects appear per token: a container, a finished string or number, a change, a snapshot copy.
UTF-8 input is decoded with CPython's stateful decoder, carrying an incomplete character to the next piece.

The open containers are not tracked by the cyclic garbage collector while they are open: only the parser refers to
them, and they hold nothing but JSON values, so they can be in no cycle. Left tracked, every full collection walked
the whole open path again, which made a deep document cost more per character the deeper it grew. A container is
tracked again when it closes, before anyone else can see it, and every snapshot copy is tracked, so a user who
mutates a snapshot into a cycle still has it collected.

A snapshot that nobody holds any more is updated in place to the next one (``_build_snapshot``): the parser keeps
the last two it built, and where the older is held by nobody else, nor any copy in it, and nobody changed them, it
touches only what changed since (the open string's str grows in place, a list copy gets the new items), as CPython
itself grows a str that nothing else refers to. What anyone holds never changes; what nobody holds, nobody sees.
"""

cimport cython
from cpython.dict cimport PyDict_Copy, PyDict_DelItem, PyDict_GetItem, PyDict_SetItem
from cpython.list cimport PyList_Append, PyList_GET_ITEM, PyList_GetSlice
from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy

from collections import deque

from . import _shared
from ._repair import parse_tool_call_arguments
from ._shared import (
    ABSENT,
    APPEND_AFTER_FINISH,
    REPLACE_AFTER_FINISH,
    MISSING,
    ToolCallReplace,
    ToolCallResult,
    checked_items_path,
    checked_source_paths,
    not_str,
)

__all__ = [
    "StreamingJsonParser",
    "StreamingJsonDocuments",
    "ToolCallArgumentsStream",
    "JsonChange",
    "SetChange",
    "AppendChange",
    "DoneChange",
    "SourceChange",
]

cdef extern from "Python.h":
    Py_ssize_t Py_REFCNT(PyObject* op)
    Py_ssize_t PyTuple_GET_SIZE(object items)
    int PyErr_CheckSignals() except? -1
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_ssize_t PyUnicode_GET_LENGTH(object text)
    Py_ssize_t PyUnicode_FindChar(object text, codepoint char, Py_ssize_t start, Py_ssize_t end,
                                  int direction) except -2
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    object PyUnicode_New(Py_ssize_t size, codepoint maxchar)
    object PyUnicode_Substring(object text, Py_ssize_t start, Py_ssize_t end)
    object PyUnicode_DecodeUTF8Stateful(const char* data, Py_ssize_t size, const char* errors,
                                        Py_ssize_t* consumed)
    object PyLong_FromString(const char* text, char** end, int base)
    double PyOS_string_to_double(const char* text, char** end, PyObject* overflow_exception) except? -1.0
    Py_ssize_t PyDict_GET_SIZE(object mapping)
    Py_ssize_t PyList_GET_SIZE(object items)
    bint PyUnicode_CheckExact(object value)
    bint PyLong_CheckExact(object value)
    int PyUnicode_Compare(object left, object right)
    Py_ssize_t PyLong_AsSsize_t(object number)
    int PyUnicode_1BYTE_KIND
    int PyUnicode_2BYTE_KIND
    int PyUnicode_4BYTE_KIND
    char* PyBytes_AS_STRING(object data)
    Py_ssize_t PyBytes_GET_SIZE(object data)
    void PyObject_GC_Track(void* op)
    void PyObject_GC_UnTrack(void* op)
    int PyObject_GC_IsTracked(object op)

ctypedef fused CharT:
    uint8_t
    uint16_t
    uint32_t

# The rules' numbers, from the one module both backends read them from.
cdef Py_ssize_t REPORT_DEPTH_LIMIT = _shared.REPORT_DEPTH_LIMIT
cdef Py_ssize_t PENDING_NUMBER_DISPLAY_LIMIT = _shared.PENDING_NUMBER_DISPLAY_LIMIT
cdef Py_ssize_t FREE_MEMBERS = _shared.FREE_MEMBERS
cdef Py_ssize_t FREE_STRING_CHARS = _shared.FREE_STRING_CHARS
cdef long long CREDIT_PER_APPEND = _shared.CREDIT_PER_APPEND
cdef long long CREDIT_PER_CHAR = _shared.CREDIT_PER_CHAR
cdef long long CONTAINER_COPY_COST = _shared.CONTAINER_COPY_COST
cdef Py_ssize_t STRING_CHARS_PER_COST = _shared.STRING_CHARS_PER_COST
cdef Py_ssize_t SKIPPED_LINES_KEPT = _shared.SKIPPED_LINES_KEPT

cdef Py_ssize_t SIGNAL_CHECK_CHARS = 1 << 20
cdef codepoint MAX_CODEPOINT = 0x10FFFF

cdef enum:
    # The characters the reading rules name.
    TAB = 0x09
    NEWLINE = 0x0A
    CARRIAGE_RETURN = 0x0D
    SPACE = 0x20
    QUOTE = 0x22            # "
    PLUS = 0x2B
    COMMA = 0x2C
    MINUS = 0x2D
    DOT = 0x2E
    SLASH = 0x2F
    DIGIT_0 = 0x30
    DIGIT_9 = 0x39
    COLON = 0x3A
    UPPER_A = 0x41
    UPPER_E = 0x45
    UPPER_F = 0x46
    OPEN_BRACKET = 0x5B     # [
    BACKSLASH = 0x5C
    CLOSE_BRACKET = 0x5D    # ]
    LOWER_A = 0x61
    LOWER_B = 0x62
    LOWER_E = 0x65
    LOWER_F = 0x66
    LOWER_N = 0x6E
    LOWER_R = 0x72
    LOWER_T = 0x74
    LOWER_U = 0x75
    OPEN_BRACE = 0x7B       # {
    CLOSE_BRACE = 0x7D      # }
    BACKSPACE = 0x08
    FORM_FEED = 0x0C

cdef enum:
    # Modes: what the next character belongs to.
    STRUCTURE, STRING, WORD, DONE, PROSE, SKIP_LINE

cdef enum:
    # Phases of an open container.
    EXPECT_KEY, AFTER_KEY, EXPECT_VALUE, AFTER_VALUE

cdef enum:
    # What an open string or word is.
    ROLE_KEY, ROLE_VALUE, ROLE_DROPPED

cdef enum:
    # Word kinds, decided by the first character.
    NUMBER_WORD, TRUE_WORD, FALSE_WORD, NULL_WORD, UNKNOWN_WORD

cdef enum:
    # A number's state after the characters read so far (a JSON number DFA), and a literal's.
    N_START, N_MINUS, N_ZERO, N_INT, N_DOT, N_FRAC, N_EXP, N_EXP_SIGN, N_EXP_DIGITS, WORD_INVALID, LITERAL_PREFIX

cdef enum:
    INPUT_UNKNOWN, INPUT_STR, INPUT_BYTES

cdef enum:
    # What a value whose source text is reported is: how its end is found.
    NO_SOURCE, SOURCE_CONTAINER, SOURCE_STRING, SOURCE_WORD

cdef object NOTHING = ABSENT  # "no value" inside the parser; MISSING is only what snapshot() returns
cdef tuple ROOT_PATH = ()
cdef const char* LITERAL_TEXT[5]
LITERAL_TEXT[TRUE_WORD] = b"true"
LITERAL_TEXT[FALSE_WORD] = b"false"
LITERAL_TEXT[NULL_WORD] = b"null"
cdef tuple LITERAL_WORDS = (None, "true", "false", "null")  # by word kind, as text to read
cdef Py_ssize_t LITERAL_LENGTH[5]
LITERAL_LENGTH[TRUE_WORD] = 4
LITERAL_LENGTH[FALSE_WORD] = 5
LITERAL_LENGTH[NULL_WORD] = 4

# Prose: which characters after a bracket start JSON, built from the rule's one statement in _shared.
cdef bint CONTINUES_AFTER_BRACE[128]
cdef bint CONTINUES_AFTER_BRACKET[128]
for _char in _shared.PROSE_CONTINUES_AFTER_BRACE:
    CONTINUES_AFTER_BRACE[ord(_char)] = True
for _char in _shared.PROSE_CONTINUES_AFTER_BRACKET:
    CONTINUES_AFTER_BRACKET[ord(_char)] = True


cdef inline bint is_whitespace(codepoint char) noexcept nogil:
    return char == SPACE or char == NEWLINE or char == CARRIAGE_RETURN or char == TAB


cdef inline bint is_blank(codepoint char, bint lines) noexcept nogil:
    """Whitespace that separates tokens; in JSON Lines a newline is not blank: it ends the line."""
    return char == SPACE or char == TAB or char == CARRIAGE_RETURN or (char == NEWLINE and not lines)


cdef inline bint ends_word(codepoint char) noexcept nogil:
    return (is_whitespace(char) or char == COMMA or char == COLON or char == OPEN_BRACKET or char == CLOSE_BRACKET
            or char == OPEN_BRACE or char == CLOSE_BRACE or char == QUOTE)


cdef inline bint continues_json(codepoint bracket, codepoint char) noexcept nogil:
    if char >= 128:
        return False
    return CONTINUES_AFTER_BRACE[char] if bracket == OPEN_BRACE else CONTINUES_AFTER_BRACKET[char]


cdef inline int hex_value(codepoint char) noexcept nogil:
    if DIGIT_0 <= char <= DIGIT_9:
        return char - DIGIT_0
    if LOWER_A <= char <= LOWER_F:
        return char - LOWER_A + 10
    if UPPER_A <= char <= UPPER_F:
        return char - UPPER_A + 10
    return -1


cdef inline bint is_digit(codepoint char) noexcept nogil:
    return DIGIT_0 <= char <= DIGIT_9


cdef inline bint is_exponent_mark(codepoint char) noexcept nogil:
    return char == LOWER_E or char == UPPER_E


cdef inline int next_number_state(int state, codepoint char) noexcept nogil:
    cdef bint digit = is_digit(char)
    if state == N_MINUS:
        return N_ZERO if char == DIGIT_0 else (N_INT if digit else WORD_INVALID)
    if state == N_ZERO:
        return N_DOT if char == DOT else (N_EXP if is_exponent_mark(char) else WORD_INVALID)
    if state == N_INT:
        if digit:
            return N_INT
        return N_DOT if char == DOT else (N_EXP if is_exponent_mark(char) else WORD_INVALID)
    if state == N_DOT:
        return N_FRAC if digit else WORD_INVALID
    if state == N_FRAC:
        if digit:
            return N_FRAC
        return N_EXP if is_exponent_mark(char) else WORD_INVALID
    if state == N_EXP:
        if char == PLUS or char == MINUS:
            return N_EXP_SIGN
        return N_EXP_DIGITS if digit else WORD_INVALID
    if state == N_EXP_SIGN or state == N_EXP_DIGITS:
        return N_EXP_DIGITS if digit else WORD_INVALID
    return WORD_INVALID


cdef inline codepoint simple_escape(codepoint char) noexcept nogil:
    """The character an escape such as ``\\n`` stands for, or 0 where the escape is not valid."""
    if char == QUOTE or char == BACKSLASH or char == SLASH:
        return char
    if char == LOWER_B:
        return BACKSPACE
    if char == LOWER_F:
        return FORM_FEED
    if char == LOWER_N:
        return NEWLINE
    if char == LOWER_R:
        return CARRIAGE_RETURN
    if char == LOWER_T:
        return TAB
    return 0


# Changes hold parser-made JSON values, which cannot refer back to a change: no cycle to collect, so no GC tracking.
@cython.no_gc
cdef class JsonChange:
    """JsonChange(*args, **kwargs)
--

One change that a piece of text made to the value: a :class:`SetChange`, an :class:`AppendChange`, a
    :class:`DoneChange` or a :class:`SourceChange`."""

    def __init__(self, *args, **kwargs):
        raise TypeError(_shared.CHANGE_IS_ABSTRACT)

    def _fields(self):
        raise NotImplementedError

    def __eq__(self, other):
        if not isinstance(other, JsonChange):
            return NotImplemented
        return self.kind == other.kind and self._fields() == other._fields()

    def __ne__(self, other):
        if not isinstance(other, JsonChange):
            return NotImplemented
        return not (self.kind == other.kind and self._fields() == other._fields())

    def __hash__(self):
        return hash((self.kind,) + self._fields())

    def __reduce__(self):
        return (type(self), self._fields())


@cython.final
@cython.no_gc
cdef class SetChange(JsonChange):
    """SetChange(path, value)
--

``kind == "set"``: the value at ``path`` is now ``value`` (a key, an array item or a finished value)."""

    def __init__(self, tuple path not None, object value):
        self.path = path
        self.value = value

    @property
    def kind(self):
        return "set"

    def _fields(self):
        return (self.path, self.value)

    def __repr__(self):
        return f"SetChange(path={self.path!r}, value={self.value!r})"


@cython.final
@cython.no_gc
cdef class AppendChange(JsonChange):
    """AppendChange(path, text)
--

``kind == "append"``: the open string at ``path`` grew by ``text``."""

    def __init__(self, tuple path not None, str text not None):
        self.path = path
        self.text = text

    @property
    def kind(self):
        return "append"

    def _fields(self):
        return (self.path, self.text)

    def __repr__(self):
        return f"AppendChange(path={self.path!r}, text={self.text!r})"


@cython.final
@cython.no_gc
cdef class DoneChange(JsonChange):
    """DoneChange(path, value)
--

``kind == "done"``: the value at ``path`` is complete; ``value`` is the very object later snapshots share."""

    def __init__(self, tuple path not None, object value):
        self.path = path
        self.value = value

    @property
    def kind(self):
        return "done"

    def _fields(self):
        return (self.path, self.value)

    def __repr__(self):
        return f"DoneChange(path={self.path!r}, value={self.value!r})"


@cython.final
@cython.no_gc
cdef class SourceChange(JsonChange):
    """SourceChange(path, text, last=False)
--

``kind == "source"``: the next piece of the source text of the value at ``path`` (one of the parser's
    ``source_paths``), exactly as it was read; a value's pieces join to its text from its first character to its
    last, and ``last`` is true on the piece that ends it (empty where only the character after a number or literal
    ended it)."""

    def __init__(self, tuple path not None, str text not None, bint last=False):
        self.path = path
        self.text = text
        self.last = last

    @property
    def kind(self):
        return "source"

    def _fields(self):
        return (self.path, self.text, self.last)

    def __repr__(self):
        last = ", last=True" if self.last else ""
        return f"SourceChange(path={self.path!r}, text={self.text!r}{last})"


# A parser makes a change for nearly every value, and a caller drops them a piece later: the three kinds (one layout)
# share a free list of their memory, which saves the allocator a round trip and a clear for each; it holds a piece's
# worth of a 4 KB piece of records (a few hundred). (Cython's own free lists are for base classes only.) The list is
# the module's, shared by every parser: with the GIL it is safe, as CPython's own free lists were; a free-threaded
# build has none (a change is freed on whichever thread drops it), so that no thread touches it unlocked.
cdef extern from *:
    """
    #define STREAMING_JSON_FREE_CHANGES 512
    static PyObject *streaming_json_free_changes[STREAMING_JSON_FREE_CHANGES];
    static int streaming_json_free_change_count = 0;
    static Py_ssize_t streaming_json_change_size = 0;

    static PyObject *streaming_json_change_alloc(PyTypeObject *type, Py_ssize_t items) {
        if (streaming_json_free_change_count && type->tp_basicsize == streaming_json_change_size) {
            PyObject *change = streaming_json_free_changes[--streaming_json_free_change_count];
            memset(change, 0, (size_t)streaming_json_change_size);
            return PyObject_Init(change, type);
        }
        return PyType_GenericAlloc(type, items);
    }

    static void streaming_json_change_free(void *change) {
        if (streaming_json_free_change_count < STREAMING_JSON_FREE_CHANGES
                && Py_TYPE((PyObject *)change)->tp_basicsize == streaming_json_change_size) {
            streaming_json_free_changes[streaming_json_free_change_count++] = (PyObject *)change;
        } else {
            PyObject_Free(change);
        }
    }

    static void streaming_json_share_free_changes(PyTypeObject *type) {
    #ifdef Py_GIL_DISABLED
        (void)type;
        return;
    #endif
        streaming_json_change_size = type->tp_basicsize;
        type->tp_alloc = streaming_json_change_alloc;
        type->tp_free = streaming_json_change_free;
    }
    """
    void streaming_json_share_free_changes(type change_type)


for _change_type in (SetChange, AppendChange, DoneChange):  # a SourceChange has a field more: not this layout
    streaming_json_share_free_changes(_change_type)


cdef extern from *:
    """
    /* Empty `list` for another use where nobody but the parser holds it, keeping its room; 0 where somebody does.
       Its items are released once it is empty, from a copy, so that whatever releasing them runs (the user's object
       in a change's value, freed) finds an empty list. */
    static int streaming_json_list_reuse(PyObject *list) {
        PyObject *held[8];
        Py_ssize_t count = PyList_GET_SIZE(list), index;
        if (!streaming_json_unique(list) || !PyList_CheckExact(list) || count > 8) return 0;
        memcpy(held, ((PyListObject *)list)->ob_item, (size_t)count * sizeof(PyObject *));
        Py_SET_SIZE(list, 0);
        for (index = 0; index < count; index++) Py_DECREF(held[index]);
        return 1;
    }
    """
    bint streaming_json_list_reuse(PyObject* list) noexcept


# A snapshot shows the open string as a str of its text so far, and the next snapshot needs one a piece longer: copied
# whole each time, a string streamed in n pieces costs O(n) a snapshot (up to FREE_STRING_CHARS characters, then as
# the copy credit allows). Instead, the str a snapshot showed is made with room to grow, and the parser keeps it; once
# nobody else holds it (the snapshot that showed it was dropped, as a view drops the value before the last), the next
# snapshot extends that very str by the characters read since, in place, and shows it: what no one can see any more,
# no one sees change. CPython does the same for ``text += piece`` when nothing else refers to ``text``. Only where
# the layout of a str is known (CPython 3.9 to 3.13, the GIL held); elsewhere each snapshot's str is a fresh copy.
cdef extern from *:
    """
    #ifndef STREAMING_JSON_GROWS_TEXT  /* (-DSTREAMING_JSON_GROWS_TEXT=0 builds what other Pythons run, to test it) */
    #if PY_VERSION_HEX >= 0x03090000 && PY_VERSION_HEX < 0x030E0000 && !defined(Py_GIL_DISABLED) \
        && !defined(PYPY_VERSION)
    #define STREAMING_JSON_GROWS_TEXT 1
    #else
    #define STREAMING_JSON_GROWS_TEXT 0
    #endif
    #endif

    /* A str of `length` characters of `kind` from `data`, of the class of `maxchar` (ASCII, Latin-1, UCS-2, UCS-4:
       the narrowest that holds its text, as every str must be), with room for `capacity` in all. */
    static PyObject *streaming_json_text_with_room(Py_UCS4 maxchar, const char *data, int kind, Py_ssize_t length,
                                                   Py_ssize_t capacity) {
    #if STREAMING_JSON_GROWS_TEXT
        PyObject *text = PyUnicode_New(capacity, maxchar);
        if (text == NULL) return NULL;
        memcpy(PyUnicode_DATA(text), data, (size_t)(length * kind));
        PyUnicode_WRITE(kind, PyUnicode_DATA(text), length, 0);
        ((PyASCIIObject *)text)->length = length;
    #if PY_VERSION_HEX < 0x030C0000
        if (!PyUnicode_IS_ASCII(text) && ((PyASCIIObject *)text)->wstr != NULL)  /* shares the data (UCS-4) */
            ((PyCompactUnicodeObject *)text)->wstr_length = length;
    #endif
        return text;
    #else
        (void)capacity;
        return PyUnicode_FromKindAndData(kind, data, length);
    #endif
    }

    /* Whether `text`, made by streaming_json_text_with_room with room for `capacity`, can grow in place to `length`
       characters of the class of `maxchar`: the parser's `references` (its own, and its kept snapshot's) are the
       only ones (no user's, not interned), it has not cached another form of its text, its class is still the
       text's, and it has room. */
    static int streaming_json_text_can_grow(PyObject *text, Py_UCS4 maxchar, Py_ssize_t length,
                                            Py_ssize_t capacity, Py_ssize_t references) {
    #if STREAMING_JSON_GROWS_TEXT
        int ascii = maxchar < 128;
        int kind = maxchar < 256 ? 1 : (maxchar < 65536 ? 2 : 4);
        if (Py_REFCNT(text) != references || PyUnicode_CHECK_INTERNED(text) || length > capacity) return 0;
        if ((int)PyUnicode_IS_ASCII(text) != ascii || (int)PyUnicode_KIND(text) != kind) return 0;
        if (!ascii && ((PyCompactUnicodeObject *)text)->utf8 != NULL) return 0;
    #if PY_VERSION_HEX < 0x030C0000
        if (((PyASCIIObject *)text)->wstr != NULL && ((PyASCIIObject *)text)->wstr != PyUnicode_DATA(text)) return 0;
    #endif
        return 1;
    #else
        (void)text; (void)maxchar; (void)length; (void)capacity; (void)references;
        return 0;
    #endif
    }

    /* Show `length` characters of `text` (made by streaming_json_text_with_room, and nobody else holds it): the
       characters up to there are in place; its hash, if one was taken, is forgotten. */
    static void streaming_json_text_show(PyObject *text, Py_ssize_t length) {
    #if STREAMING_JSON_GROWS_TEXT
        PyUnicode_WRITE(PyUnicode_KIND(text), PyUnicode_DATA(text), length, 0);
        ((PyASCIIObject *)text)->length = length;
        ((PyASCIIObject *)text)->hash = -1;
    #if PY_VERSION_HEX < 0x030C0000
        if (!PyUnicode_IS_ASCII(text) && ((PyASCIIObject *)text)->wstr != NULL)
            ((PyCompactUnicodeObject *)text)->wstr_length = length;
    #endif
    #else
        (void)text; (void)length;
    #endif
    }

    /* Copy into `text` (streaming_json_text_can_grow said it can grow) the characters of `data` (of its kind) from
       the ones it shows up to `length`, past what it shows: nobody sees them until it shows them. */
    static void streaming_json_text_catch_up(PyObject *text, const char *data, Py_ssize_t length) {
        int kind = PyUnicode_KIND(text);
        Py_ssize_t held = PyUnicode_GET_LENGTH(text);
        if ((const char *)PyUnicode_DATA(text) != data)
            memcpy((char *)PyUnicode_DATA(text) + held * kind, data + held * kind, (size_t)((length - held) * kind));
    }

    /* Grow `text` (streaming_json_text_can_grow said it can) to the first `length` characters of `data`, of its
       kind: it holds the first ones already (or `data` is its own). */
    static void streaming_json_text_grow(PyObject *text, const char *data, Py_ssize_t length) {
        streaming_json_text_catch_up(text, data, length);
        streaming_json_text_show(text, length);
    }

    /* Give `*text` (made by streaming_json_text_with_room; the caller holds the one reference) room for `room`
       characters, keeping the first `length`, which it shows: CPython's own resize of a str nobody else holds, a
       realloc (a large block is remapped, not copied). 0, or -1 with MemoryError. */
    static int streaming_json_text_resize(PyObject **text, Py_ssize_t length, Py_ssize_t room) {
        streaming_json_text_show(*text, length);  /* (what a copy would keep, where CPython had to copy it) */
        if (PyUnicode_Resize(text, room) < 0) return -1;
        streaming_json_text_show(*text, length);
        return 0;
    }

    /* What says a snapshot's copy of an open container is as the parser built it: a dict's version tag, which
       CPython changes at every change of a dict (PEP 509), or a list's size. Where the tag cannot be read (a
       free-threaded build, 3.14), a dict's copy is never reused: its size would miss a value its user replaced
       before letting it go. */
    #define STREAMING_JSON_SEES_DICT_CHANGES STREAMING_JSON_GROWS_TEXT
    static unsigned long long streaming_json_copy_tag(PyObject *copy) {
    #if STREAMING_JSON_GROWS_TEXT
        if (PyDict_CheckExact(copy)) {
    #if PY_VERSION_HEX >= 0x030C0000
    #pragma GCC diagnostic push
    #pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    #endif
            return (unsigned long long)((PyDictObject *)copy)->ma_version_tag;
    #if PY_VERSION_HEX >= 0x030C0000
    #pragma GCC diagnostic pop
    #endif
        }
    #endif
        return (unsigned long long)Py_SIZE(copy);
    }

    /* Whether the first `count` items of two lists are the same objects. */
    static int streaming_json_items_equal(PyObject *copy, PyObject *working, Py_ssize_t count) {
        return count <= PyList_GET_SIZE(copy) && count <= PyList_GET_SIZE(working)
            && memcmp(((PyListObject *)copy)->ob_item, ((PyListObject *)working)->ob_item,
                      (size_t)count * sizeof(PyObject *)) == 0;
    }

    """
    unsigned long long streaming_json_copy_tag(PyObject* copy) noexcept
    bint STREAMING_JSON_SEES_DICT_CHANGES
    bint streaming_json_items_equal(PyObject* copy, PyObject* working, Py_ssize_t count) noexcept
    object streaming_json_text_with_room(codepoint maxchar, const char* data, int kind, Py_ssize_t length,
                                         Py_ssize_t capacity)
    bint STREAMING_JSON_GROWS_TEXT
    bint streaming_json_text_can_grow(PyObject* text, codepoint maxchar, Py_ssize_t length,
                                      Py_ssize_t capacity, Py_ssize_t references) noexcept
    void streaming_json_text_grow(PyObject* text, const char* data, Py_ssize_t length) noexcept
    void streaming_json_text_show(PyObject* text, Py_ssize_t length) noexcept
    void streaming_json_text_catch_up(PyObject* text, const char* data, Py_ssize_t length) noexcept
    int streaming_json_text_resize(PyObject** text, Py_ssize_t length, Py_ssize_t room) except -1


cdef inline SetChange new_set(tuple path, object value):
    cdef SetChange change = SetChange.__new__(SetChange)
    change.path = path
    change.value = value
    return change


cdef inline AppendChange new_append(tuple path, str text):
    cdef AppendChange change = AppendChange.__new__(AppendChange)
    change.path = path
    change.text = text
    return change


cdef inline DoneChange new_done(tuple path, object value):
    cdef DoneChange change = DoneChange.__new__(DoneChange)
    change.path = path
    change.value = value
    return change


# Keys repeat (the members of records, the arguments of calls to one tool): a key's str is made once and shared by
# every parser while the cache holds it, as json.loads' memo and orjson's key cache do. That saves an allocation a
# member, and hashing the key again when it goes into a dict (a str keeps its hash). Short Latin-1 keys only: the
# cache is a table indexed by a hash of the text, an entry replaced by the next key that falls on it. The table is the
# module's, shared by every parser on every thread: on a free-threaded build a lock guards it (an entry is taken, with
# a reference, or replaced, under it; the new str is made outside it); with the GIL the lock is nothing.
cdef extern from *:
    """
    #define STREAMING_JSON_KEY_CACHE_SIZE 512
    static PyObject *streaming_json_key_cache[STREAMING_JSON_KEY_CACHE_SIZE];
    #ifdef Py_GIL_DISABLED
    static PyMutex streaming_json_key_cache_lock = {0};
    #define STREAMING_JSON_KEY_CACHE_LOCK() PyMutex_Lock(&streaming_json_key_cache_lock)
    #define STREAMING_JSON_KEY_CACHE_UNLOCK() PyMutex_Unlock(&streaming_json_key_cache_lock)
    #else
    #define STREAMING_JSON_KEY_CACHE_LOCK() ((void)0)
    #define STREAMING_JSON_KEY_CACHE_UNLOCK() ((void)0)
    #endif

    /* A key's str (a new reference): the one made for the same text before where the cache holds it, else a new
       one it keeps. */
    static PyObject *streaming_json_shared_key(const unsigned char *text, Py_ssize_t length, Py_UCS4 maxchar) {
        uint32_t hash = 2166136261u;  /* FNV-1a */
        Py_ssize_t index;
        PyObject *cached, *key, *released;
        for (index = 0; index < length; index++) hash = (hash ^ text[index]) * 16777619u;
        index = (Py_ssize_t)((hash ^ (hash >> 16)) & (STREAMING_JSON_KEY_CACHE_SIZE - 1));
        STREAMING_JSON_KEY_CACHE_LOCK();
        cached = streaming_json_key_cache[index];
        if (cached != NULL && PyUnicode_GET_LENGTH(cached) == length
                && memcmp(PyUnicode_DATA(cached), text, (size_t)length) == 0) {
            Py_INCREF(cached);
            STREAMING_JSON_KEY_CACHE_UNLOCK();
            return cached;
        }
        STREAMING_JSON_KEY_CACHE_UNLOCK();
        key = PyUnicode_New(length, maxchar);
        if (key == NULL) return NULL;
        memcpy(PyUnicode_DATA(key), text, (size_t)length);
        Py_INCREF(key);  /* the cache's */
        STREAMING_JSON_KEY_CACHE_LOCK();
        released = streaming_json_key_cache[index];
        streaming_json_key_cache[index] = key;
        STREAMING_JSON_KEY_CACHE_UNLOCK();
        Py_XDECREF(released);  /* a str: no code runs */
        return key;
    }
    """
    object streaming_json_shared_key(const uint8_t* text, Py_ssize_t length, codepoint maxchar)


cdef enum:
    KEY_CACHE_LONGEST = 32  # the longest key the cache holds

cdef enum:
    STORE_FROM = 4096  # an open string this long, once shown, keeps its characters in a store (see _make_room)


cdef inline Py_ssize_t room_for(Py_ssize_t length) noexcept nogil:
    """The characters a snapshot's str of the open string is made with room for: twice its length while it is
    short, a quarter more from STORE_FROM on (where its room is most of the memory the parser holds)."""
    return length + (length if length < STORE_FROM else length // 4) + 16


cdef inline SourceChange new_source(tuple path, str text, bint last):
    cdef SourceChange change = SourceChange.__new__(SourceChange)
    change.path = path
    change.text = text
    change.last = last
    return change


cdef bint matches(tuple pattern, tuple path):
    """Whether a path matches a pattern of the same length (``"*"`` matches any step; index 1 is not key "1")."""
    cdef Py_ssize_t index
    for index in range(PyTuple_GET_SIZE(pattern)):
        step = <object>PyTuple_GET_ITEM(pattern, index)
        if step == "*":
            continue
        slot = <object>PyTuple_GET_ITEM(path, index)
        if type(step) is not type(slot) or step != slot:
            return False
    return True


cdef tuple extend_path(tuple path, object slot):
    """``path + (slot,)`` in one allocation: a path is built for nearly every value."""
    cdef Py_ssize_t length = PyTuple_GET_SIZE(path)
    cdef Py_ssize_t index
    cdef tuple extended = PyTuple_New(length + 1)
    cdef object item
    for index in range(length):
        item = <object>PyTuple_GET_ITEM(path, index)
        Py_INCREF(item)
        PyTuple_SET_ITEM(extended, index, item)
    Py_INCREF(slot)
    PyTuple_SET_ITEM(extended, length, slot)
    # Keys and indices only: it can be in no cycle, and the collector need not walk it (CPython's own collections
    # would find that out and untrack it, after walking it once).
    PyObject_GC_UnTrack(<PyObject*>extended)
    return extended


cdef inline object copy_container(Frame* frame):
    """A snapshot's copy of an open container: tracked by the GC as CPython would track it, since the user holds it
    (see the module doc)."""
    cdef object copy
    if frame.is_object:
        copy = PyDict_Copy(<object>frame.container)
        if frame.holds_container and not PyObject_GC_IsTracked(copy):  # a copy of an untracked dict starts untracked
            PyObject_GC_Track(<PyObject*>copy)
        return copy
    return PyList_GetSlice(<object>frame.container, 0, PyList_GET_SIZE(<object>frame.container))


cdef inline int put_in_slot(object container, bint is_object, PyObject* key, object value) except -1:
    """Put ``value`` where the open child of a (copied) container goes: its current key, or its last element."""
    if is_object:
        PyDict_SetItem(container, <object>key, value)
    else:
        (<list>container)[PyList_GET_SIZE(container) - 1] = value
    return 0


cdef inline int add_in_slot(object container, bint is_object, PyObject* key, object value) except -1:
    """Add a pending word's value to a (copied) container: under its key, or as a new last element."""
    if is_object:
        PyDict_SetItem(container, <object>key, value)
    else:
        PyList_Append(container, value)
    return 0


cdef int update_copy(object copy, Frame* frame, ShownLevel* level, object child, object word) except -1:
    """Update a kept snapshot's copy of an open container (``_reusable_levels`` found it as built) to show it as it is
    now, holding ``child`` (the next copy, or the open string's str) in its open slot, or ``word``, a pending word's
    value: only what changed since is touched."""
    cdef object working = <object>frame.container
    cdef Py_ssize_t built = <Py_ssize_t>level.work_tag
    cdef Py_ssize_t size = PyList_GET_SIZE(working) if not frame.is_object else 0
    cdef Py_ssize_t index
    cdef PyObject* value
    if frame.is_object:
        # The working dict did not change: only the open slot's value may be new, or, where the value it showed
        # open has ended since (a container closed, a word was dropped), the working dict's own, if any.
        if child is not NOTHING:
            if <PyObject*>child != level.child:  # (as built, the slot holds level.child)
                PyDict_SetItem(copy, <object>frame.key, child)
        elif word is not NOTHING:
            PyDict_SetItem(copy, <object>frame.key, word)
        elif level.child != NULL or level.has_word:
            value = PyDict_GetItem(working, <object>frame.key)
            if value != NULL:
                PyDict_SetItem(copy, <object>frame.key, <object>value)
            else:
                PyDict_DelItem(copy, <object>frame.key)
        return 0
    if level.has_word:  # the pending word it showed, after the working list's items: not one of them
        del (<list>copy)[built]
    # The item the copy showed open is the working one again, unless it is still the open one.
    if level.child != NULL and not (size == built and child is not NOTHING):
        (<list>copy)[built - 1] = <object>PyList_GET_ITEM(working, built - 1)
    for index in range(built, size):
        PyList_Append(copy, <object>PyList_GET_ITEM(working, index))
    if child is not NOTHING:
        if PyList_GET_ITEM(copy, size - 1) != <PyObject*>child:
            (<list>copy)[size - 1] = child
    elif word is not NOTHING:
        PyList_Append(copy, word)
    return 0


cdef int store_run(StreamingJsonParser parser, const CharT* run, Py_ssize_t count, codepoint maxchar) except -1:
    """Append a run of plain string characters to the open string: a memcpy where the kinds agree."""
    cdef Py_ssize_t index
    cdef Py_ssize_t length = parser._string_length
    parser._reserve_string(count, maxchar)
    cdef char* buffer = parser._string_buffer
    if parser._string_kind == sizeof(CharT):
        memcpy(buffer + length * sizeof(CharT), run, count * sizeof(CharT))
    elif parser._string_kind == 1:
        for index in range(count):
            (<uint8_t*>buffer)[length + index] = <uint8_t>run[index]
    elif parser._string_kind == 2:
        for index in range(count):
            (<uint16_t*>buffer)[length + index] = <uint16_t>run[index]
    else:
        for index in range(count):
            (<uint32_t*>buffer)[length + index] = <uint32_t>run[index]
    parser._string_length = length + count
    if maxchar > parser._piece_maxchar:
        parser._piece_maxchar = maxchar
    return 0


cdef Py_ssize_t read_word_run(StreamingJsonParser parser, const CharT* data, Py_ssize_t position,
                              Py_ssize_t length) except -1:
    """Read a word's characters up to the one that ends it (or the end of the text); return where it stopped. A
    number's text is kept and its state advanced by the JSON number DFA; a literal is matched in place."""
    cdef Py_ssize_t start = position
    cdef Py_ssize_t offset = parser._word_length
    cdef Py_ssize_t index
    cdef Py_ssize_t capacity
    cdef codepoint char
    cdef int state = parser._word_state
    cdef int previous
    cdef char* buffer
    while position < length and not ends_word(data[position]):
        position += 1
    parser._word_length = offset + (position - start)
    if position == start or parser._word_role != ROLE_VALUE or state == WORD_INVALID:
        return position  # a word that can no longer be a value changes nothing as it grows
    parser._dirty = True
    if parser._word_kind != NUMBER_WORD:
        for index in range(position - start):
            if (offset + index >= LITERAL_LENGTH[parser._word_kind]
                    or data[start + index] != <codepoint>LITERAL_TEXT[parser._word_kind][offset + index]):
                parser._word_state = WORD_INVALID
                break
        return position
    if offset + (position - start) + 1 > parser._word_capacity:  # the number's text, and a terminating NUL
        capacity = max(offset + (position - start) + 1, parser._word_capacity * 2, 32)
        buffer = <char*>PyMem_Realloc(parser._word_buffer, capacity)
        if buffer == NULL:
            raise MemoryError()
        parser._word_buffer = buffer
        parser._word_capacity = capacity
    for index in range(position - start):
        char = data[start + index]
        previous = state
        if state == N_START:
            state = N_ZERO if char == DIGIT_0 else N_INT
        elif offset + index == 0:  # the leading minus
            state = N_MINUS
        else:
            state = next_number_state(state, char)
        if state == WORD_INVALID:
            break
        if state == N_EXP and previous != N_EXP:
            parser._mantissa_length = offset + index
        elif state == N_DOT:
            parser._mantissa_is_float = True
        parser._word_buffer[offset + index] = <char>char
    parser._word_state = state
    return position


cdef Py_ssize_t read_after_bracket(StreamingJsonParser parser, const CharT* data, Py_ssize_t position,
                                   Py_ssize_t length) except -1:
    """The characters after a bracket in prose, up to the one that decides whether JSON starts there; return where
    to read on (the deciding character is read again, as JSON or as prose)."""
    cdef codepoint bracket = parser._prose_bracket
    cdef Py_ssize_t matched = parser._prose_literal_length
    cdef int kind = parser._prose_literal_kind
    cdef codepoint char
    if not matched:
        while position < length and is_blank(data[position], parser._lines):
            position += 1
        if position == length:
            return position
    char = data[position]
    if char == NEWLINE and parser._lines:  # the line ends before the bracket's JSON could start
        parser._prose_bracket = 0
        parser._prose_literal_length = 0
        parser._end_line()
        return position + 1
    if matched:
        if matched < LITERAL_LENGTH[kind] and char == <codepoint>LITERAL_TEXT[kind][matched]:
            parser._prose_literal_length = matched + 1
            return position + 1
        parser._prose_bracket = 0
        parser._prose_literal_length = 0
        if matched == LITERAL_LENGTH[kind] and (is_whitespace(char) or char == COMMA or char == CLOSE_BRACKET):
            parser._mode = STRUCTURE
            parser._begin_container(False)
            parser._read(LITERAL_WORDS[kind])
        return position
    if bracket == OPEN_BRACKET and (char == LOWER_T or char == LOWER_F or char == LOWER_N):
        parser._prose_literal_kind = TRUE_WORD if char == LOWER_T else (FALSE_WORD if char == LOWER_F else NULL_WORD)
        parser._prose_literal_length = 1
        return position + 1
    parser._prose_bracket = 0
    if continues_json(bracket, char):
        parser._mode = STRUCTURE
        parser._begin_container(bracket == OPEN_BRACE)
    return position


cdef int read_text(StreamingJsonParser parser, const CharT* data, Py_ssize_t length) except -1:
    """The main loop: structure character by character, string and word runs in tight loops over the buffer."""
    cdef Py_ssize_t position = 0
    cdef codepoint char
    cdef Py_ssize_t start
    cdef codepoint maxchar
    cdef bint lines = parser._lines
    cdef int mode
    while position < length:
        mode = parser._mode
        if mode == STRUCTURE:
            while position < length and is_blank(data[position], lines):
                position += 1
            if position == length:
                break
            char = data[position]
            if char == NEWLINE:  # only in JSON Lines: elsewhere it was blank
                parser._end_line()
                position += 1
                continue
            if parser._source_waiting or parser._source_kind == SOURCE_CONTAINER:
                parser._track_source(char, parser._slice_start + position)
            parser._read_structure(char)
            if parser._mode != WORD:  # a word reads its first character itself
                position += 1
        elif mode == STRING:
            if parser._escape_length or parser._high_surrogate:
                if lines and data[position] == NEWLINE:
                    parser._end_line()
                    position += 1
                    continue
                position += parser._read_escape_char(data[position])
                continue
            if parser._string_role == ROLE_DROPPED:
                while position < length:
                    char = data[position]
                    if char == QUOTE or char == BACKSLASH or (char == NEWLINE and lines):
                        break
                    position += 1
            else:
                start = position
                maxchar = 0
                while position < length:
                    char = data[position]
                    if char == QUOTE or char == BACKSLASH or (char == NEWLINE and lines):
                        break
                    # The characters OR-ed: not the largest, but one of the same width class (below 128, 256,
                    # 65,536), which is all a str's kind depends on, and no branch a character.
                    maxchar |= char
                    position += 1
                if position > start:
                    store_run(parser, data + start, position - start, min(maxchar, MAX_CODEPOINT))
                if position == length and start == 0 and parser._slice_start == 0:
                    parser._read_from_string = True  # the whole text, in the open string's plain characters
            if position == length:
                break
            char = data[position]
            if char == QUOTE:
                if parser._source_kind == SOURCE_STRING:
                    parser._end_source(parser._slice_start + position + 1)
                parser._close_string()
            elif char == NEWLINE:  # only in JSON Lines: the line ends, and the string with it
                parser._end_line()
            else:
                parser._escape[0] = BACKSLASH
                parser._escape_length = 1
            position += 1
        elif mode == WORD:
            position = read_word_run(parser, data, position, length)
            if position < length:
                if parser._source_kind == SOURCE_WORD:
                    parser._end_source(parser._slice_start + position)
                parser._end_word()
        elif mode == PROSE:
            if parser._prose_bracket:
                position = read_after_bracket(parser, data, position, length)
                continue
            while position < length:
                char = data[position]
                if char == OPEN_BRACE or char == OPEN_BRACKET or (char == NEWLINE and lines):
                    break
                position += 1
            if position == length:
                break
            if char == NEWLINE:
                parser._end_line()
            else:
                parser._prose_bracket = char
            position += 1
        elif mode == SKIP_LINE:
            while position < length and data[position] != NEWLINE:
                position += 1
            if position == length:
                break
            parser._end_line()
            position += 1
        else:  # after the root value: not read
            if parser._unused_from < 0:
                parser._unused_from = parser._slice_start + position
            break
    return 0


@cython.auto_pickle(False)  # a stream, not a value
cdef class StreamingJsonParser:
    """StreamingJsonParser(*, changes=True, done_events=False, report_depth=_shared.REPORT_DEPTH_LIMIT, prose=False,
source_paths=(), stable=False, items_at=None)
--

Incremental, tolerant JSON parser: ``append()`` each piece of text, ``snapshot()`` the value so far.

    ``append()`` returns the changes the piece made; ``snapshot()`` returns an immutable value that shares completed
    parts with earlier snapshots. Neither ever raises on any text.

    ``changes=False`` builds no ``set``/``append`` changes (for callers that only want snapshots or done events);
    ``done_events=True`` adds a :class:`DoneChange` for every value a piece completed; ``report_depth`` (at most and
    by default 32) is the depth at which a container is reported whole when it closes, nothing inside it one by one;
    ``prose=True`` reads the first object or array in prose or a markdown fence, skipping the text around it.
    ``source_paths`` (paths of keys and indices, ``"*"`` for any one step) adds a :class:`SourceChange` for each piece
    of the text of a value at a matching path, verbatim; ``items_at`` (a path of keys and indices) lets
    :meth:`append_items` return each finished element of the array there; ``done`` and ``unused_text`` say where the
    root value ended and what followed it, ``in_string`` whether the text so far ends inside a string.

    A parser is used by one thread at a time; parsers of their own run on many threads at once, on a free-threaded
    build too.
    """

    def __cinit__(self, *args, **kwargs):
        self._frames = NULL
        self._string_buffer = NULL
        self._string_kind = 1
        self._word_buffer = NULL
        self._depth = 0
        self._frames_capacity = 0
        self._root_value = NOTHING
        self._mode = STRUCTURE
        self._string_role = ROLE_VALUE
        self._string_path = None
        self._last_snapshot = MISSING
        self._changes = []
        self._utf8_tail = b""
        self._emit_changes = True
        self._report_depth = REPORT_DEPTH_LIMIT
        self._line_number = 1
        self._source_patterns = ()
        self._source_path = ROOT_PATH
        self._shown_word = NOTHING
        self._unused_from = -1
        self._items_at = ()
        self._items_depth = -1

    def __init__(self, *, bint changes=True, bint done_events=False, report_depth=REPORT_DEPTH_LIMIT,
                 bint prose=False, source_paths=(), bint stable=False, items_at=None):
        # Past the limit, paths would grow with the nesting and the cost of reporting with them: linearity forbids it.
        if type(report_depth) is not int or not 0 <= report_depth <= REPORT_DEPTH_LIMIT:
            raise ValueError(_shared.bad_report_depth(report_depth))
        self._report_depth = report_depth
        self._emit_changes = changes
        self._emit_done = done_events
        self._prose = prose
        self._stable = stable
        self._mode = PROSE if prose else STRUCTURE
        if source_paths:  # (the default, (), costs no call)
            self._source_patterns = checked_source_paths(source_paths, prose)
            for pattern in self._source_patterns:
                self._source_lengths |= 1ULL << len(pattern)
            self._source_waiting = bool(self._source_patterns)
        if items_at is not None:
            self._items_at = checked_items_path(items_at)
            self._items_depth = PyTuple_GET_SIZE(self._items_at)

    def __dealloc__(self):
        self._forget_shown()
        PyMem_Free(self._shown)
        self._release_store()
        self._release_frames()
        PyMem_Free(self._frames)
        PyMem_Free(self._scratch)
        PyMem_Free(self._word_buffer)

    # --- Public API ---------------------------------------------------------------------------------------------

    @cython.binding(False)  # per piece: a method of the type's own, called without a function object between
    @cython.embedsignature.format("clinic")
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def append(self, text):
        """Read the next piece (``str``, or UTF-8 ``bytes``-like); return the changes it made, in order."""
        # The list the last append returned, where nobody holds it any more (the caller read it and let it go), is
        # emptied and returned again: no list to make and free a piece.
        if self._busy or not streaming_json_list_reuse(<PyObject*>self._changes):
            self._changes = []
        self._feed(text)
        return self._changes

    @cython.binding(False)  # per piece: a method of the type's own, called without a function object between
    @cython.embedsignature.format("clinic")
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def append_source(self, text):
        """Read the next piece as :meth:`append` does. Where the piece lies wholly in the value whose source text is
        being reported (``source_paths``), begun before it, and changed nothing else, return the piece itself (a
        ``str``: that value's next text, verbatim) instead of a change; otherwise return the changes, as
        :meth:`append` would (a ``list``).

        For a layer that relays a value's text as it streams (a tool call's arguments, in a model's output): inside
        that value, a piece costs the scan and nothing more. The piece that begins the value (its path comes with
        its first :class:`SourceChange`), the one that ends it, and one that makes any other change (a done event, a
        set) come as the list; so does a piece that changed nothing (an empty list). ``done``, ``unused_text`` and
        ``in_string`` say, as after :meth:`append`, whether the root value ended, what followed it, and whether the
        text so far ends in a string.
        """
        return self._append_source(text)

    cdef object _append_source(self, object text):
        """``append_source()``, for a compiled layer that cimports the parser: ``str`` or ``list``."""
        if self._busy or not streaming_json_list_reuse(<PyObject*>self._changes):
            self._changes = []
        self._source_text_wanted = True
        try:
            self._feed(text)
        finally:
            self._source_text_wanted = False
        if self._source_text is not None:
            found = self._source_text
            self._source_text = None
            return found
        return self._changes

    @cython.binding(False)  # per piece: a method of the type's own, called without a function object between
    @cython.embedsignature.format("clinic")
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def append_items(self, text):
        """Read the next piece as :meth:`append` does; return the elements of the array at ``items_at`` that it
        finished, in order (a ``list``, empty where it finished none), instead of its changes.

        For a reader of the items one by one (:func:`~streaming_json.iter_items`): an element costs what reading it
        does and one list append, with no change object and no path. The parser is made with ``items_at`` (and, as
        the changes are not returned, ``changes=False``). Where a repeated key replaces the array, the new array's
        elements follow; elements finished in a piece read by :meth:`append` are not returned later.
        """
        return self._append_items(text)

    cdef list _append_items(self, object text):
        """``append_items()``, for a compiled layer that cimports the parser."""
        if self._items_depth < 0:
            raise ValueError(_shared.NO_ITEMS_AT)
        if self._busy or self._items is None or not streaming_json_list_reuse(<PyObject*>self._items):
            self._items = []
        if self._busy or not streaming_json_list_reuse(<PyObject*>self._changes):
            self._changes = []
        self._items_wanted = True
        try:
            self._feed(text)
        finally:
            self._items_wanted = False
        return self._items

    @cython.binding(False)  # per piece: a method of the type's own, called without a function object between
    @cython.embedsignature.format("clinic")
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def snapshot(self, *, bint fresh=False):
        """The value of the text read so far (``MISSING`` before a value starts); never changes once returned.

        While a fresh copy of a large open path is not yet paid for, the previous snapshot is returned; ``fresh=True``
        pays for it regardless (a copy of the open path), e.g. once when the stream ends.
        """
        if not self._dirty or self._busy:
            return self._last_snapshot
        cdef long long cost
        if not fresh and (self._open_members > FREE_MEMBERS or self._string_length > FREE_STRING_CHARS):
            cost = (self._open_members + CONTAINER_COPY_COST * self._depth
                    + self._string_length // STRING_CHARS_PER_COST)
            if cost > self._credit:
                return self._last_snapshot  # not paid for yet: the preview lags until enough text arrives
            self._credit -= cost
        self._busy = True
        try:
            self._last_snapshot = self._build_snapshot()
            self._dirty = False
        finally:
            self._busy = False
        return self._last_snapshot

    @property
    def done(self):
        """Whether the root value has ended (a number or literal ends at the character after it)."""
        return self._root_done

    @property
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def unused_text(self):
        """The text after the end of the root value, which the parser does not read: an end marker, prose, the next
        document (as ``zlib``'s ``unused_data``); for bytes input, decoded."""
        if self._unused is None:
            return ""
        if len(self._unused) > 1:
            self._unused = ["".join(self._unused)]
        return self._unused[0]

    @property
    def in_string(self):
        """Whether the text read so far ends inside a string (a key or a value): a marker searched for in the text
        that follows is part of that string there."""
        return self._mode == STRING

    @property
    def open_path_is_small(self):
        """Whether the open path is small enough to copy for free (the condition ``snapshot()`` tests): at most
        ``FREE_MEMBERS`` (256) members and elements open, and an open string of at most ``FREE_STRING_CHARS``
        (4,096) characters. While it is, every snapshot is fresh, and a layer that walks the open path as a snapshot
        copies it (the typed streams) may walk it as often."""
        return self._open_members <= FREE_MEMBERS and self._string_length <= FREE_STRING_CHARS

    # --- Input --------------------------------------------------------------------------------------------------

    cdef int _feed(self, object text) except -1:
        """Read a piece; changes go to ``self._changes``. The entry point of this module's own wrappers."""
        cdef str decoded = self._decode(text)
        cdef Py_ssize_t length = PyUnicode_GET_LENGTH(decoded)
        cdef Py_ssize_t newline
        cdef bint source_was_open = self._source_kind != NO_SOURCE
        if self._busy:
            raise RuntimeError("StreamingJsonParser used from two threads at once")
        self._busy = True
        try:
            self._credit += CREDIT_PER_APPEND + CREDIT_PER_CHAR * length
            self._read_from_string = False
            self._read(decoded)
            if self._mode == STRING:
                # A piece read whole as plain characters of the open string is the text it added: reported as is.
                self._flush_string_piece(decoded if self._read_from_string and length <= SIGNAL_CHECK_CHARS else None)
            if self._source_kind != NO_SOURCE:
                if self._source_text_wanted and source_was_open and not PyList_GET_SIZE(self._changes):
                    # append_source(): the piece, all of it the reported value's text, its only change, is handed
                    # over as it is, not as a change object.
                    if length:
                        self._source_text = decoded
                else:
                    self._report_source(decoded, length, False)
                self._source_from = 0
            if self._unused_from >= 0:
                if self._unused is None:
                    self._unused = []
                self._unused.append(decoded[self._unused_from:])
                self._unused_from = -1
            if self._lines and length:
                newline = PyUnicode_FindChar(decoded, NEWLINE, 0, length, -1)
                self._line_has_text = newline < length - 1
        finally:
            self._busy = False
        return 0

    cdef str _decode(self, object text):
        cdef bytes data
        cdef Py_ssize_t consumed = 0
        if type(text) is str:
            if self._input_kind == INPUT_BYTES:
                raise TypeError(_shared.STR_AFTER_BYTES)
            self._input_kind = INPUT_STR
            return <str>text
        if isinstance(text, str):  # a str subclass reads as its text
            return self._decode(str(text))
        if not isinstance(text, (bytes, bytearray, memoryview)):
            raise TypeError(_shared.not_text(text))
        if self._input_kind == INPUT_STR:
            raise TypeError(_shared.bytes_after_str(text))
        self._input_kind = INPUT_BYTES
        data = text if type(text) is bytes else bytes(text)
        if self._utf8_tail:  # an incomplete character from the previous piece
            data = self._utf8_tail + data
        decoded = PyUnicode_DecodeUTF8Stateful(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data), "replace",
                                               &consumed)
        self._utf8_tail = data[consumed:] if consumed < PyBytes_GET_SIZE(data) else b""
        return decoded

    cdef int _read(self, str text) except -1:
        # Long texts are read in slices with a check for signals between them, so that Ctrl-C can stop a huge
        # append() between two characters, where the state is whole.
        cdef int kind = PyUnicode_KIND(text)
        cdef char* data = <char*>PyUnicode_DATA(text)
        cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text)
        cdef Py_ssize_t start = 0
        cdef Py_ssize_t count
        # Positions count from the start of the text (read_text reads slices), and source text is cut from it; a
        # nested read (prose's literal) restores the outer one's.
        cdef Py_ssize_t outer_start = self._slice_start
        cdef str outer_text = None
        if self._source_lengths:
            outer_text = self._reading
            self._reading = text
        while start < length:
            self._slice_start = start
            count = min(length - start, SIGNAL_CHECK_CHARS)
            if kind == PyUnicode_1BYTE_KIND:
                read_text(self, <const uint8_t*>(data + start), count)
            elif kind == PyUnicode_2BYTE_KIND:
                read_text(self, <const uint16_t*>(data + 2 * start), count)
            else:
                read_text(self, <const uint32_t*>(data + 4 * start), count)
            start += count
            if start < length and PyErr_CheckSignals() < 0:
                return -1
        if self._source_lengths:
            self._reading = outer_text
        self._slice_start = outer_start
        return 0

    # --- Structure ----------------------------------------------------------------------------------------------

    cdef int _read_structure(self, codepoint char) except -1:
        cdef Frame* top
        if char == QUOTE:
            return self._begin_string()
        if char == OPEN_BRACE or char == OPEN_BRACKET:
            return self._begin_container(char == OPEN_BRACE)
        if char == CLOSE_BRACE or char == CLOSE_BRACKET:
            return self._close_container()
        if char == COMMA or char == COLON:
            if self._depth and not self._dropped_depth:
                top = &self._frames[self._depth - 1]
                if char == COMMA:
                    top.phase = EXPECT_KEY if top.is_object else EXPECT_VALUE
                elif top.phase == AFTER_KEY:
                    top.phase = EXPECT_VALUE
            return 0
        return self._begin_word(char)

    # --- Source text --------------------------------------------------------------------------------------------

    cdef int _track_source(self, codepoint char, Py_ssize_t position) except -1:
        """A structure character where source text is asked for: a value may start here, or the one reported end."""
        if char == CLOSE_BRACE or char == CLOSE_BRACKET:
            if (self._source_kind == SOURCE_CONTAINER and self._depth == self._source_depth + 1
                    and not self._dropped_depth):
                self._end_source(position + 1)
            return 0
        if char == COMMA or char == COLON or not self._source_waiting:
            return 0
        if char == QUOTE:
            return self._begin_source(SOURCE_STRING, position)
        if char == OPEN_BRACE or char == OPEN_BRACKET:
            return self._begin_source(SOURCE_CONTAINER, position)
        return self._begin_source(SOURCE_WORD, position)

    cdef int _begin_source(self, int kind, Py_ssize_t position) except -1:
        """A value may start here: where its path matches a source pattern, report its text from here on."""
        cdef Py_ssize_t depth = self._depth
        cdef Py_ssize_t index
        cdef Frame* frame
        if depth >= 64 or not (self._source_lengths >> depth) & 1:
            return 0
        if self._value_frame() == -2:  # a key, or a value in an invalid position: no path
            return 0
        # The slot of each open container on the way: its key, or its last element (the top's next one).
        cdef tuple path = PyTuple_New(depth)
        for index in range(depth):
            frame = &self._frames[index]
            if frame.is_object:
                if frame.key == NULL:
                    return 0
                slot = <object>frame.key
            else:
                slot = PyList_GET_SIZE(<object>frame.container) - (0 if index == depth - 1 else 1)
            Py_INCREF(slot)
            PyTuple_SET_ITEM(path, index, slot)
        for pattern in self._source_patterns:
            if PyTuple_GET_SIZE(pattern) == depth and matches(<tuple>pattern, path):
                self._source_kind = kind
                self._source_path = path
                self._source_depth = depth
                self._source_from = position
                self._source_waiting = False
                return 0
        return 0

    cdef int _report_source(self, str text, Py_ssize_t end, bint last) except -1:
        if end > self._source_from or last:
            self._changes.append(new_source(self._source_path, PyUnicode_Substring(text, self._source_from, end),
                                            last))
        return 0

    cdef int _end_source(self, Py_ssize_t end) except -1:
        """The value whose source was reported ended at ``end`` (exclusive): its last piece, before its done event."""
        self._report_source(self._reading, end, True)
        self._source_kind = NO_SOURCE
        self._source_waiting = True
        return 0

    cdef Py_ssize_t _value_frame(self) noexcept:
        """The index of the frame a value starting here belongs to; -1 at the root; -2 where it is dropped."""
        cdef Frame* top
        if self._dropped_depth:
            return -2
        if not self._depth:
            return -1
        top = &self._frames[self._depth - 1]
        if top.is_object and (top.phase == EXPECT_KEY or top.phase == AFTER_VALUE):
            return -2
        return self._depth - 1

    cdef object _place(self, Py_ssize_t index, object value):
        """Put a started value into its slot; return its path, or None where it is not reported."""
        cdef Frame* frame
        cdef Py_ssize_t size
        cdef object slot
        if index < 0:
            self._root_value = value
            # Without changes or done events nothing is reported: no path is ever built.
            return ROOT_PATH if self._emit_changes or self._emit_done else None
        frame = &self._frames[index]
        if frame.is_object:
            size = PyDict_GET_SIZE(<object>frame.container)
            PyDict_SetItem(<object>frame.container, <object>frame.key, value)  # a repeated key keeps its place
            PyObject_GC_UnTrack(frame.container)  # inserting a container tracked it again: an open one stays out
            self._open_members += PyDict_GET_SIZE(<object>frame.container) - size
            slot = <object>frame.key
        else:
            PyList_Append(<object>frame.container, value)
            self._open_members += 1
            slot = PyList_GET_SIZE(<object>frame.container) - 1
        if frame.reported:
            return extend_path(<tuple>frame.path, slot)
        return None

    cdef int _value_finished(self, Py_ssize_t index, object value) except -1:
        cdef Frame* frame
        if index >= 0:
            frame = &self._frames[index]
            frame.phase = AFTER_VALUE
            if frame.collects and self._items_wanted:
                PyList_Append(self._items, value)
            return 0
        if self._shown != NULL and (self._shown[self._newest].root != NULL or self._shown[self._newest].text != NULL):
            self._forget_shown()  # the root value ended: what snapshots show is that value, nothing to update
        if self._documents is not None:
            self._documents.append(self._root_value)
            self._reset_document()
            self._line_done = True
            if self._lines:
                self._mode = SKIP_LINE  # the rest of the line is not read
        else:
            self._root_done = True
            self._mode = DONE
        return 0

    cdef int _report_set(self, tuple path, object value) except -1:
        if self._emit_changes:
            self._changes.append(new_set(path, value))
        return 0

    cdef int _report_done(self, tuple path, object value) except -1:
        if self._emit_done:
            self._changes.append(new_done(path, value))
        return 0

    cdef int _begin_container(self, bint is_object) except -1:
        cdef Py_ssize_t index = self._value_frame()
        if index == -2:
            self._dropped_depth += 1
            return 0
        container = {} if is_object else []
        PyObject_GC_UnTrack(<PyObject*>container)  # open: only the parser sees it (see the module doc)
        self._credit += CONTAINER_COPY_COST  # showing it costs about what reading it did (see _shared)
        path = self._place(index, container)
        if index >= 0:
            self._frames[index].holds_container = True
        if path is not None and self._emit_changes:
            self._report_set(path, {} if is_object else [])
        self._push_frame(container, is_object, path,
                         self._items_depth >= 0 and (index < 0 or self._child_on_items_path(index)))
        self._dirty = True
        return 0

    cdef bint _child_on_items_path(self, Py_ssize_t index) noexcept:
        """Whether the value just placed in frame ``index`` lies on the path to ``items_at``: the frame does, and
        the value's key or index is the path's next step (a key never matches an index)."""
        cdef Frame* frame = &self._frames[index]
        cdef PyObject* step
        if not frame.on_items_path or index >= self._items_depth:
            return False
        step = PyTuple_GET_ITEM(self._items_at, index)
        if frame.is_object:
            # Both are exact str (items_at is checked, keys are read): the comparison cannot fail.
            return PyUnicode_CheckExact(<object>step) and (
                step == frame.key or PyUnicode_Compare(<object>step, <object>frame.key) == 0)
        # An index of items_at is a non-negative int that fits (checked): the conversion cannot fail.
        return PyLong_CheckExact(<object>step) and PyLong_AsSsize_t(<object>step) == (
            PyList_GET_SIZE(<object>frame.container) - 1)

    cdef int _push_frame(self, object container, bint is_object, object path, bint on_items_path) except -1:
        cdef Py_ssize_t capacity
        cdef Frame* frames
        cdef Frame* frame
        if self._depth == self._frames_capacity:
            capacity = self._frames_capacity * 2 if self._frames_capacity else 1
            frames = <Frame*>PyMem_Realloc(self._frames, capacity * sizeof(Frame))
            if frames == NULL:
                raise MemoryError()
            self._frames = frames
            self._frames_capacity = capacity
        frame = &self._frames[self._depth]
        Py_INCREF(container)
        frame.container = <PyObject*>container
        frame.key = NULL
        if path is None:
            frame.path = NULL
            frame.reported = False
        else:
            Py_INCREF(path)
            frame.path = <PyObject*>path
            frame.reported = PyTuple_GET_SIZE(path) < self._report_depth
        frame.is_object = is_object
        frame.holds_container = False
        frame.on_items_path = on_items_path
        frame.collects = on_items_path and not is_object and self._depth == self._items_depth
        self._frame_serial += 1
        frame.serial = self._frame_serial
        frame.phase = EXPECT_KEY if is_object else EXPECT_VALUE
        self._depth += 1
        return 0

    cdef int _close_container(self) except -1:
        cdef Frame* frame
        if self._dropped_depth:
            self._dropped_depth -= 1
            if not self._dropped_depth:
                self._frames[self._depth - 1].phase = AFTER_VALUE
            return 0
        if not self._depth:
            return 0  # a stray closer before the root value
        self._depth -= 1
        frame = &self._frames[self._depth]
        container = <object>frame.container  # takes a reference of its own before the frame's is released
        # Closed: others may see it now, so the GC must (see the module doc); a dict of scalars CPython leaves out.
        if (not frame.is_object or frame.holds_container) and not PyObject_GC_IsTracked(container):
            PyObject_GC_Track(frame.container)
        self._open_members -= PyDict_GET_SIZE(container) if frame.is_object else PyList_GET_SIZE(container)
        if frame.path != NULL:
            if not frame.reported:
                self._report_set(<tuple>frame.path, container)  # deep container: reported whole
            self._report_done(<tuple>frame.path, container)
        Py_XDECREF(frame.container)
        Py_XDECREF(frame.key)
        Py_XDECREF(frame.path)
        frame.container = frame.key = frame.path = NULL
        return self._value_finished(self._depth - 1, container)

    cdef void _release_frames(self) noexcept:
        cdef Py_ssize_t index
        if self._frames == NULL:
            return
        for index in range(self._depth):
            Py_XDECREF(self._frames[index].container)
            Py_XDECREF(self._frames[index].key)
            Py_XDECREF(self._frames[index].path)
            self._frames[index].container = self._frames[index].key = self._frames[index].path = NULL
        self._depth = 0

    # --- Strings ------------------------------------------------------------------------------------------------

    cdef int _begin_string(self) except -1:
        cdef Frame* top
        cdef Py_ssize_t index
        self._string_serial += 1
        self._mode = STRING
        self._string_length = 0
        self._string_flushed = 0
        self._string_maxchar = 0
        self._piece_maxchar = 0
        if self._string_store != NULL:
            self._release_store()
        self._string_kind = 1  # the parser's own buffer, read as 1 byte a character from the start
        self._string_capacity = self._scratch_bytes
        self._string_shown = False
        self._string_reported = False
        self._string_path = None
        if self._depth and not self._dropped_depth:
            top = &self._frames[self._depth - 1]
            if top.is_object and (top.phase == EXPECT_KEY or top.phase == AFTER_VALUE):
                self._string_role = ROLE_KEY
                return 0
        index = self._value_frame()
        if index == -2:
            self._string_role = ROLE_DROPPED
            return 0
        self._string_role = ROLE_VALUE
        self._string_path = self._place(index, "")
        self._dirty = True
        return 0

    cdef int _reserve_string(self, Py_ssize_t extra, codepoint maxchar) except -1:
        """Make room for ``extra`` more characters up to ``maxchar``, widening the buffer's kind if needed."""
        if maxchar > self._string_maxchar:
            self._widen_string(maxchar)
        if self._string_length + extra <= self._string_capacity:
            return 0
        return self._make_room(self._string_length + extra)

    # The open string's text is in one buffer, whole: the parser's own, or a str's own characters (the store). Once a
    # snapshot has shown a value string of STORE_FROM characters or more, its characters go to a store: a str with
    # room that nobody else holds, which the next snapshot shows as it is (its length set, in place); the store it
    # showed takes no more characters, and the next one is the str the snapshot before showed, once nobody holds that
    # any more (the characters it lacks copied in), or a new str. So a long open string read a piece at a time, a
    # snapshot after each, is held in the two strs the last two snapshots show, no third copy: its peak is about
    # twice the text, plus the room (a quarter). Elsewhere (a key, a string no snapshot showed, a shorter one, a
    # Python where a str cannot grow in place) it is the parser's own buffer, which is kept from one string to the
    # next while it is small, and a snapshot's str grows in place from it with room to double (_open_string): for a
    # short string the copies cost little memory, and the store's moves would cost time a piece.

    cdef int _make_room(self, Py_ssize_t needed) except -1:
        """Room for ``needed`` characters: the parser's own buffer grown, or, for a long value string a snapshot
        showed, a store (``_to_store``)."""
        if self._string_store != NULL or (self._string_shown and self._string_length >= STORE_FROM
                                          and STREAMING_JSON_GROWS_TEXT):
            return self._to_store(needed)
        return self._to_scratch(needed, self._string_kind)

    cdef int _to_scratch(self, Py_ssize_t needed, int kind) except -1:
        """Make the parser's own buffer the open string's, ``kind`` bytes a character, with room for ``needed``,
        holding the text so far (copied, and widened, from where it was)."""
        cdef Py_ssize_t capacity
        cdef Py_ssize_t index
        cdef char* scratch
        if self._string_store == NULL and kind == self._string_kind:
            capacity = max(needed, self._scratch_bytes // kind * 2, 16)
            scratch = <char*>PyMem_Realloc(self._scratch, capacity * kind)
            if scratch == NULL:
                raise MemoryError()
        else:
            capacity = max(needed, self._string_length * 2, 16)
            scratch = <char*>PyMem_Malloc(capacity * kind)
            if scratch == NULL:
                raise MemoryError()
            if kind == self._string_kind:
                memcpy(scratch, self._string_buffer, self._string_length * kind)
            else:
                for index in range(self._string_length):
                    if kind == 2:
                        (<uint16_t*>scratch)[index] = (<uint8_t*>self._string_buffer)[index]
                    elif self._string_kind == 1:
                        (<uint32_t*>scratch)[index] = (<uint8_t*>self._string_buffer)[index]
                    else:
                        (<uint32_t*>scratch)[index] = (<uint16_t*>self._string_buffer)[index]
            self._release_store()
            PyMem_Free(self._scratch)
        self._scratch = self._string_buffer = scratch
        self._scratch_bytes = capacity * kind
        self._string_capacity = capacity
        self._string_kind = kind
        return 0

    cdef int _to_store(self, Py_ssize_t needed) except -1:
        """Room for ``needed`` characters of a value string a snapshot showed, in a store: the store itself resized
        where nobody else holds it (it filled up between two snapshots); else the str the snapshot before the last
        showed, where nobody holds it any more and it has room, the characters it lacks copied in; else a new str
        (that one let go first where it can be, so that it is freed before the new one is made)."""
        cdef Shown* other
        cdef PyObject* text
        cdef PyObject* store = self._string_store
        cdef Py_ssize_t references
        cdef Py_ssize_t room = room_for(needed)
        if store != NULL and not self._store_shown:
            # Full, and nobody else holds it: but the record of the snapshot it will go to (and that snapshot's
            # copies), which are let go (the next snapshot copies the open path afresh, once).
            if self._shown != NULL and self._shown[1 - self._newest].text == store:
                self._forget_record(&self._shown[1 - self._newest])
            if Py_REFCNT(store) == 1:
                streaming_json_text_resize(&self._string_store, self._string_length, room)
                self._string_buffer = <char*>PyUnicode_DATA(<object>self._string_store)
                self._string_capacity = self._store_room = room
                return 0
        elif self._shown != NULL:
            other = &self._shown[1 - self._newest]
            text = other.text
            if text != NULL and text != store and other.string_serial == self._string_serial:
                references = 1
                if (other.root != NULL and self._depth and other.depth == self._depth
                        and other.levels[self._depth - 1].child == text and self._reusable_levels() == self._depth):
                    references = 2  # and the copy it is in, which nobody else holds either
                if streaming_json_text_can_grow(text, self._string_maxchar, needed, other.room, references):
                    streaming_json_text_catch_up(text, self._string_buffer, self._string_length)
                    return self._take_store(text, other.room)
                if needed >= STORE_FROM and streaming_json_text_can_grow(text, self._string_maxchar, 0, 0, references):
                    self._forget_record(other)  # nobody holds it, but it is too small: let it go first
        new_text = streaming_json_text_with_room(self._string_maxchar, self._string_buffer, self._string_kind,
                                                 self._string_length, room)
        return self._take_store(<PyObject*>new_text, room)

    cdef int _take_store(self, PyObject* text, Py_ssize_t room) except -1:
        """Make ``text`` (holding the open string's text, past what it shows) its store, and let the parser's own
        buffer go where it is large."""
        Py_INCREF(<object>text)
        self._release_store()
        self._string_store = text
        self._store_room = self._string_capacity = room
        self._store_shown = False
        self._string_buffer = <char*>PyUnicode_DATA(<object>text)
        if self._scratch_bytes > 4096:
            PyMem_Free(self._scratch)
            self._scratch = NULL
            self._scratch_bytes = 0
        return 0

    cdef void _release_store(self) noexcept:
        """The open string's characters are no longer in the store: let it go (the snapshots that show it keep it)."""
        cdef PyObject* store = self._string_store
        self._string_store = NULL
        self._store_shown = False
        self._string_buffer = self._scratch
        self._string_capacity = self._scratch_bytes // self._string_kind if self._string_kind else 0
        Py_XDECREF(store)

    cdef int _widen_string(self, codepoint maxchar) except -1:
        """A character beyond the open string's class so far: its buffer is widened where the kind changes, and a
        store, whose class is fixed when it is made, is left for the parser's own buffer."""
        cdef int kind = 1 if maxchar < 0x100 else (2 if maxchar < 0x10000 else 4)
        cdef bint new_class = (maxchar >= 0x80) != (self._string_maxchar >= 0x80) or kind > self._string_kind
        self._string_maxchar = maxchar
        if kind > self._string_kind or (new_class and self._string_store != NULL):
            return self._to_scratch(self._string_length + 1, max(kind, self._string_kind))
        return 0

    cdef int _store_char(self, codepoint char) except -1:
        if self._string_role == ROLE_DROPPED:
            return 0
        self._reserve_string(1, char)
        if self._string_kind == 1:
            (<uint8_t*>self._string_buffer)[self._string_length] = <uint8_t>char
        elif self._string_kind == 2:
            (<uint16_t*>self._string_buffer)[self._string_length] = <uint16_t>char
        else:
            (<uint32_t*>self._string_buffer)[self._string_length] = char
        self._string_length += 1
        if char > self._piece_maxchar:
            self._piece_maxchar = char
        return 0

    cdef int _add_char(self, codepoint char) except -1:
        cdef codepoint held = self._high_surrogate
        if held and not self._escape_length:
            self._high_surrogate = 0
            self._store_char(held)  # a lone high surrogate stays a lone code point
        return self._store_char(char)

    cdef int _read_escape_char(self, codepoint char) except -1:
        """Read one character of an escape, or the one after a held high surrogate; return 1 if it was used."""
        cdef int digit
        cdef int index
        cdef int escape_length = self._escape_length
        cdef codepoint unit = 0
        if escape_length == 0:  # a high surrogate is held: only an escape can pair it
            if char == BACKSLASH:
                self._escape[0] = BACKSLASH
                self._escape_length = 1
                return 1
            char, self._high_surrogate = self._high_surrogate, 0
            self._store_char(char)
            return 0
        if escape_length == 1:
            if char == LOWER_U:
                self._escape[1] = LOWER_U
                self._escape_length = 2
                return 1
            self._escape_length = 0
            unit = simple_escape(char)
            if unit:
                self._add_char(unit)
            else:  # an invalid escape stays literal text
                self._add_char(BACKSLASH)
                self._add_char(char)
            return 1
        digit = hex_value(char)
        if digit < 0:
            # An incomplete \u escape stays literal text; the character that broke it is read afresh.
            self._escape_length = 0
            for index in range(escape_length):
                self._add_char(self._escape[index])
            return 0
        self._escape[escape_length] = char
        self._escape_length = escape_length + 1
        if escape_length + 1 < 6:
            return 1
        self._escape_length = 0
        for index in range(2, 6):
            unit = unit * 16 + <codepoint>hex_value(self._escape[index])
        self._add_code_unit(unit)
        return 1

    cdef int _add_code_unit(self, codepoint unit) except -1:
        cdef codepoint held = self._high_surrogate
        if held:
            self._high_surrogate = 0
            if 0xDC00 <= unit <= 0xDFFF:
                return self._store_char(0x10000 + ((held - 0xD800) << 10) + (unit - 0xDC00))
            self._store_char(held)  # a lone high surrogate stays a lone code point
        if 0xD800 <= unit <= 0xDBFF:
            self._high_surrogate = unit  # held until we see whether a low-surrogate escape follows
            return 0
        return self._store_char(unit)

    cdef str _string_slice(self, Py_ssize_t start):
        """The open string's text from ``start`` on; from the last flush, the piece's largest character is known."""
        cdef codepoint maxchar = self._string_maxchar if start == 0 else self._piece_maxchar
        cdef int kind = 1 if maxchar < 0x100 else (2 if maxchar < 0x10000 else 4)
        if kind != self._string_kind:  # the piece is narrower than the buffer: let CPython narrow it
            return PyUnicode_FromKindAndData(self._string_kind, self._string_buffer + start * self._string_kind,
                                             self._string_length - start)
        text = PyUnicode_New(self._string_length - start, maxchar)
        memcpy(PyUnicode_DATA(text), self._string_buffer + start * kind, (self._string_length - start) * kind)
        return text

    cdef object _flush_string_piece(self, str added=None):
        """Report this piece's text of the open value string; return it where it was built, else None. ``added``,
        where given, is that text already (the piece, read whole as plain string characters)."""
        cdef Py_ssize_t start = self._string_flushed
        piece = None
        self._string_flushed = self._string_length
        if self._string_role != ROLE_VALUE:
            return None
        if self._string_path is not None and self._emit_changes:
            if added is not None and PyUnicode_GET_LENGTH(added) == self._string_length - start:
                piece = added
            if not self._string_reported:
                self._string_reported = True
                if piece is None:
                    piece = self._string_slice(start)
                self._changes.append(new_set(<tuple>self._string_path, piece))
            elif self._string_length > start:
                if piece is None:
                    piece = self._string_slice(start)
                self._changes.append(new_append(<tuple>self._string_path, piece))
        if self._string_length > start:
            self._dirty = True
        self._piece_maxchar = 0
        return piece

    cdef int _close_string(self) except -1:
        cdef bint whole_in_piece = self._string_flushed == 0
        cdef Frame* top
        cdef Py_ssize_t index = self._depth - 1
        piece = self._flush_string_piece()
        self._mode = STRUCTURE
        if self._string_role == ROLE_DROPPED:
            value = None
        elif self._string_role == ROLE_KEY and self._string_kind == 1 and self._string_length <= KEY_CACHE_LONGEST:
            value = streaming_json_shared_key(<const uint8_t*>self._string_buffer, self._string_length,
                                              self._string_maxchar)
        else:
            value = piece if whole_in_piece and piece is not None else self._string_slice(0)
        self._string_length = self._string_flushed = 0  # a closed string is no longer part of the copy cost
        if self._string_store != NULL:
            self._release_store()  # (the value is a copy; the snapshots that showed the store keep it)
        if self._string_role == ROLE_DROPPED:
            if not self._dropped_depth:
                self._frames[index].phase = AFTER_VALUE
            return 0
        if self._string_role == ROLE_KEY:
            top = &self._frames[index]
            Py_XDECREF(top.key)
            Py_INCREF(value)
            top.key = <PyObject*>value
            top.phase = AFTER_KEY
            return 0
        if index < 0:
            self._root_value = value
        else:
            put_in_slot(<object>self._frames[index].container, self._frames[index].is_object,
                        self._frames[index].key, value)
        if self._string_path is not None:
            self._report_done(<tuple>self._string_path, value)
        return self._value_finished(index, value)

    # --- Words: numbers and literals ----------------------------------------------------------------------------

    cdef int _begin_word(self, codepoint first) except -1:
        self._mode = WORD
        self._shown_word = NOTHING
        self._word_length = 0
        self._mantissa_length = 0
        self._mantissa_is_float = False
        if first == MINUS or is_digit(first):
            self._word_kind = NUMBER_WORD
            self._word_state = N_MINUS if first == MINUS else N_START
        elif first == LOWER_T or first == LOWER_F or first == LOWER_N:
            self._word_kind = TRUE_WORD if first == LOWER_T else (FALSE_WORD if first == LOWER_F else NULL_WORD)
            self._word_state = LITERAL_PREFIX
        else:
            self._word_kind = UNKNOWN_WORD
            self._word_state = WORD_INVALID
        self._word_role = ROLE_DROPPED if self._value_frame() == -2 else ROLE_VALUE
        return 0

    cdef object _word_number(self, Py_ssize_t length, bint is_float):
        """The number in the first ``length`` characters of the word, as json.loads reads it."""
        cdef char saved = self._word_buffer[length]
        self._word_buffer[length] = 0
        try:
            if not is_float:
                try:
                    return PyLong_FromString(self._word_buffer, NULL, 10)
                except ValueError:  # more digits than int() accepts: a float, as json.loads reads a huge one
                    pass
            return PyOS_string_to_double(self._word_buffer, NULL, NULL)
        finally:
            self._word_buffer[length] = saved

    cdef object _finished_word(self):
        cdef int state = self._word_state
        if self._word_kind == NUMBER_WORD:
            if state == N_ZERO or state == N_INT:
                return self._word_number(self._word_length, False)
            if state == N_FRAC or state == N_EXP_DIGITS:
                return self._word_number(self._word_length, True)
            return NOTHING
        if state == LITERAL_PREFIX and self._word_length == LITERAL_LENGTH[self._word_kind]:
            return True if self._word_kind == TRUE_WORD else (False if self._word_kind == FALSE_WORD else None)
        return NOTHING

    cdef object _pending_word(self):
        cdef int state = self._word_state
        if self._mode != WORD or self._word_role != ROLE_VALUE:
            return NOTHING
        if self._word_kind == NUMBER_WORD:
            if self._word_length > PENDING_NUMBER_DISPLAY_LIMIT:
                return self._shown_word  # stable: the value it last showed; else nothing (the cost stays O(1))
            if state == N_ZERO or state == N_INT:
                value = self._word_number(self._word_length, False)
            elif state == N_FRAC or state == N_EXP_DIGITS:
                value = self._word_number(self._word_length, True)
            elif state == N_EXP or state == N_EXP_SIGN:  # an exponent without digits is ignored
                value = self._word_number(self._mantissa_length, self._mantissa_is_float)
            elif state == N_DOT and self._stable:  # "1." shows 1, as "1" did, until its fraction comes
                value = self._word_number(self._word_length - 1, False)
            else:
                return NOTHING
            if self._stable:
                self._shown_word = value
            return value
        if state == LITERAL_PREFIX:
            return True if self._word_kind == TRUE_WORD else (False if self._word_kind == FALSE_WORD else None)
        return NOTHING

    cdef int _end_word(self) except -1:
        cdef Py_ssize_t index = self._depth - 1
        self._mode = STRUCTURE
        if self._word_role == ROLE_DROPPED:
            if not self._dropped_depth:
                self._frames[index].phase = AFTER_VALUE
            return 0
        self._dirty = True
        value = self._finished_word()
        if value is NOTHING:
            if index >= 0:  # a dropped member; at the root, the next value may still start
                self._frames[index].phase = AFTER_VALUE
            return 0
        path = self._place(index, value)
        if path is not None:
            self._report_set(<tuple>path, value)
            self._report_done(<tuple>path, value)
        return self._value_finished(index, value)

    # --- Prose, documents and lines -----------------------------------------------------------------------------

    cdef int _reset_document(self) except -1:
        """Forget the document being read (O(1) but for dropping its open containers), ready for the next one."""
        self._forget_shown()
        self._release_frames()
        self._root_done = False
        self._root_value = NOTHING
        self._dropped_depth = 0
        self._open_members = 0
        self._mode = PROSE if self._prose else STRUCTURE
        self._prose_bracket = 0
        self._prose_literal_length = 0
        self._string_length = self._string_flushed = 0
        self._string_path = None
        self._escape_length = 0
        self._high_surrogate = 0
        self._dirty = False
        self._last_snapshot = MISSING
        return 0

    cdef int _skip_line(self) except -1:
        self._skipped_lines += 1
        if self._skipped is None:
            self._skipped = deque(maxlen=SKIPPED_LINES_KEPT)
        self._skipped.append(self._line_number)
        return 0

    cdef int _end_line(self) except -1:
        """A newline in JSON Lines: a line that gave no document is skipped, and what it began is forgotten."""
        if not self._line_done:
            self._skip_line()
            self._reset_document()
        self._mode = PROSE if self._prose else STRUCTURE
        self._line_number += 1
        self._line_done = False
        return 0

    cdef int _end_input(self) except -1:
        """The end of the text: it ends a pending number or literal; in JSON Lines, it ends an unfinished last line
        (counted as skipped, its partial value kept for ``snapshot()``)."""
        if self._mode == WORD:
            self._end_word()
        if self._lines and self._line_has_text and not self._line_done:
            self._skip_line()
        self._line_has_text = False
        return 0

    # --- Snapshots ----------------------------------------------------------------------------------------------

    cdef object _open_string(self, bint in_kept_copy):
        """The open value string as a snapshot shows it (``NOTHING`` where none is open): the store, where the text
        is (shown as far as it goes, in place); else the str the snapshot before the last showed of it, grown in
        place, where nobody else can see that str any more (``in_kept_copy``: it is in a kept copy that is being
        updated, held there and by the record alone); else a new one with room to grow (see
        ``streaming_json_text_with_room``). Its room is left in ``_text_room``."""
        cdef Py_ssize_t length
        cdef Shown* old = &self._shown[1 - self._newest]
        cdef PyObject* store = self._string_store
        if self._mode != STRING or self._string_role != ROLE_VALUE:
            return NOTHING
        length = self._string_length
        self._string_shown = True
        if store != NULL:
            self._text_room = self._store_room
            if not self._store_shown:
                streaming_json_text_show(store, length)
                self._store_shown = True
                self._string_capacity = length  # it takes no more characters: the next go to another store
                return <object>store
            if PyUnicode_GET_LENGTH(<object>store) == length:
                return <object>store  # nothing was added since a snapshot showed it
        if (old.text != NULL and old.string_serial == self._string_serial
                and streaming_json_text_can_grow(old.text, self._string_maxchar, length, old.room,
                                                 2 if in_kept_copy else 1)):
            streaming_json_text_grow(old.text, self._string_buffer, length)
            self._text_room = old.room
            text = <object>old.text
        else:
            self._text_room = room_for(length)
            text = streaming_json_text_with_room(self._string_maxchar, self._string_buffer, self._string_kind, length,
                                                 self._text_room)
        if STREAMING_JSON_GROWS_TEXT and length >= STORE_FROM:
            self._string_capacity = length  # the next character goes to a store (_make_room)
        return text

    cdef void _forget_shown(self) noexcept:
        """Let go of both kept snapshots: the document ended, or the parser goes."""
        if self._shown != NULL:
            self._forget_record(&self._shown[0])
            self._forget_record(&self._shown[1])

    cdef void _forget_record(self, Shown* record) noexcept:
        """Let go of a kept snapshot and its str."""
        cdef PyObject* root = record.root
        cdef PyObject* text = record.text
        record.root = record.text = NULL
        record.depth = 0
        Py_XDECREF(root)
        Py_XDECREF(text)

    cdef Py_ssize_t _reusable_levels(self) noexcept:
        """How many open containers, from the root, have a copy in the snapshot before the last that can be updated
        in place to show them as they are now: nobody but the parser holds it (the root copy is held by the record
        alone, each other by the copy it is in), nobody changed it since it was built, it copies the same open
        container (a list closed and another opened in its place may hold fewer items), and that container changed
        only as the parser updates: a dict not at all (its version tag is the same), a list only by items after
        those the copy has (the copy's items are the list's, but for the open one it showed). (A snapshot that
        nobody holds is seen by nobody: updating it changes nothing anyone sees.) Each copy is checked as built
        before the one it holds is looked at."""
        cdef Shown* old = &self._shown[1 - self._newest]
        cdef ShownLevel* level
        cdef Frame* frame
        cdef Py_ssize_t index
        cdef Py_ssize_t size
        if old.root == NULL or not streaming_json_unique(old.root):
            return 0
        for index in range(min(old.depth, self._depth)):
            level = &old.levels[index]
            frame = &self._frames[index]
            if level.serial != frame.serial or (index and not streaming_json_unique(level.copy)):
                return index
            if streaming_json_copy_tag(level.copy) != level.copy_tag:
                return index  # changed by its user
            if frame.is_object:
                # A dict is updated only where the working one did not change (but in its open value's copy).
                if not STREAMING_JSON_SEES_DICT_CHANGES:
                    return index
                if streaming_json_copy_tag(frame.container) != level.work_tag or frame.key != level.key:
                    return index
            else:
                # A list only grows, and only its last item is replaced (a string placed when it ends): the copy's
                # items are the working list's (those it had then), but for the open one it showed.
                size = <Py_ssize_t>level.work_tag
                if level.child != NULL:
                    if PyList_GET_ITEM(<object>level.copy, size - 1) != level.child:
                        return index
                    size -= 1
                if not streaming_json_items_equal(level.copy, frame.container, size):
                    return index
        return min(old.depth, self._depth)

    cdef object _build_snapshot(self):
        """A fresh snapshot: the oldest kept one updated in place where ``_reusable_levels`` allows (from the root,
        the copies nobody else holds or changed), the rest of the open path copied afresh; kept in its place, as the
        newest."""
        cdef Py_ssize_t index
        cdef Py_ssize_t depth = self._depth
        cdef Py_ssize_t reused
        cdef Frame* frame
        cdef Shown* old
        cdef ShownLevel* level
        cdef PyObject* released
        cdef bint has_word
        if self._shown == NULL:  # the records, made for the first snapshot that shows an open value
            self._shown = <Shown*>PyMem_Calloc(2, sizeof(Shown))
            if self._shown == NULL:
                raise MemoryError()
        old = &self._shown[1 - self._newest]
        if not depth:
            if self._root_done:
                return self._root_value
            value = self._open_string(False)
            if value is not NOTHING:
                self._keep_text(value)
                return value
            value = self._pending_word()
            return MISSING if value is NOTHING else value
        if depth > SHOWN_DEPTH:
            return self._copy_open_path()
        reused = self._reusable_levels()
        if (reused == depth and old.text == self._string_store and old.text != NULL and not self._store_shown
                and old.string_serial == self._string_serial and self._mode == STRING):
            # The usual piece: only the open string's text is new, it went to the store, which the snapshot before
            # the last shows, and nobody holds that snapshot: the store shows its text (in place), and the snapshot
            # is returned again. Nothing else of it changes, nor does its record.
            streaming_json_text_show(old.text, self._string_length)
            self._store_shown = True
            self._string_capacity = self._string_length  # the next character goes to another store
            self._newest = 1 - self._newest
            return <object>old.root
        if (reused == depth and old.text != NULL and old.string_serial == self._string_serial
                and self._mode == STRING and self._string_role == ROLE_VALUE
                and streaming_json_text_can_grow(old.text, self._string_maxchar, self._string_length, old.room, 2)):
            # Only the open string's text is new (in the parser's own buffer), and nobody holds the snapshot before
            # the last: its str grows in place; nothing else of it changes, nor does its record.
            streaming_json_text_grow(old.text, self._string_buffer, self._string_length)
            if self._string_length >= STORE_FROM:
                self._string_capacity = self._string_length  # the next character goes to a store (_make_room)
            self._string_shown = True
            self._newest = 1 - self._newest
            return <object>old.root
        # The innermost open value: a string already holding its slot, or a word not yet placed.
        word = NOTHING
        text = self._open_string(reused == depth)
        if text is NOTHING:
            word = self._pending_word()
        child = text
        for index in range(depth - 1, -1, -1):
            frame = &self._frames[index]
            level = &old.levels[index]  # read where reused, then written: the kept snapshot's record of it
            has_word = index == depth - 1 and word is not NOTHING
            if index >= reused:
                copy = copy_container(frame)
                if child is not NOTHING:
                    put_in_slot(copy, frame.is_object, frame.key, child)
                elif has_word:
                    add_in_slot(copy, frame.is_object, frame.key, word)
            else:
                copy = <object>level.copy
                update_copy(copy, frame, level, child, word if has_word else NOTHING)
            level.copy = <PyObject*>copy
            level.child = NULL if child is NOTHING else <PyObject*>child
            level.serial = frame.serial
            level.copy_tag = streaming_json_copy_tag(level.copy)
            level.work_tag = streaming_json_copy_tag(frame.container)
            level.key = frame.key
            level.has_word = has_word
            child = copy
        Py_INCREF(child)
        released = old.root
        old.root = <PyObject*>child
        old.depth = depth
        Py_XDECREF(released)  # the copies not reused go with it (an updated one is the new root itself)
        self._keep_text_in(old, text)
        self._newest = 1 - self._newest
        return child

    cdef int _keep_text_in(self, Shown* record, object text) except -1:
        released = record.text
        record.text = NULL
        if text is not NOTHING:
            Py_INCREF(text)
            record.text = <PyObject*>text
            record.room = self._text_room
            record.string_serial = self._string_serial
        Py_XDECREF(released)
        return 0

    cdef int _keep_text(self, object text) except -1:
        """Keep the str a snapshot showed of the open string (the snapshot itself is not kept: the root string, or
        an open path too deep), as the newest record, in place of the oldest."""
        cdef Shown* old = &self._shown[1 - self._newest]
        released = old.root
        old.root = NULL
        old.depth = 0
        Py_XDECREF(released)
        self._keep_text_in(old, text)
        self._newest = 1 - self._newest
        return 0

    cdef object _copy_open_path(self):
        """A snapshot of an open path too deep to keep (SHOWN_DEPTH): every open container copied afresh."""
        cdef Py_ssize_t index
        cdef Frame* frame = &self._frames[self._depth - 1]
        copy = copy_container(frame)
        child = self._open_string(False)
        if child is not NOTHING:
            put_in_slot(copy, frame.is_object, frame.key, child)
            self._keep_text(child)
        else:
            word = self._pending_word()
            if word is not NOTHING:
                add_in_slot(copy, frame.is_object, frame.key, word)
        for index in range(self._depth - 2, -1, -1):
            frame = &self._frames[index]
            outer = copy_container(frame)
            put_in_slot(outer, frame.is_object, frame.key, copy)
            copy = outer
        return copy


@cython.auto_pickle(False)  # a stream, not a value
cdef class StreamingJsonDocuments:
    """StreamingJsonDocuments(*, lines=False, prose=False, stable=True)
--

Several JSON documents in one stream: concatenated values, JSON Lines, or objects and arrays in prose.

    ``append()`` returns the documents each piece completed, ``finish()`` those the end of input completes (a pending
    number or literal); ``snapshot()`` shows the document being read, or ``MISSING`` between documents. Documents are
    immutable values, shared with snapshots. Reading is lenient, as in :class:`StreamingJsonParser`, and never raises
    on any text.

    ``lines=True`` reads JSON Lines: one document a line, text after it on its line ignored; a line without a
    complete document is counted in ``skipped_lines``. ``prose=True`` finds objects and arrays in prose and markdown
    fences, skipping everything around them.
    """

    def __init__(self, *, bint lines=False, bint prose=False, bint stable=True):
        self._parser = StreamingJsonParser(changes=False, prose=prose, stable=stable)
        self._parser._documents = []
        self._parser._lines = lines
        self._count = 0
        self._finished = False

    @cython.binding(False)  # per piece: a method of the type's own, called without a function object between
    @cython.embedsignature.format("clinic")
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def append(self, text):
        """Read the next piece (``str``, or UTF-8 ``bytes``-like); return the documents it completed, in order."""
        if self._finished:
            raise ValueError(APPEND_AFTER_FINISH)
        cdef list documents = []
        self._parser._documents = documents
        self._parser._feed(text)
        self._count += len(documents)
        return documents

    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def finish(self):
        """End the input; return the documents that its end completes (a root number or literal still pending).

        An unterminated document is not complete: it is not returned, and ``snapshot()`` keeps showing it.
        """
        if self._finished:
            return []
        self._finished = True
        cdef list documents = []
        self._parser._documents = documents
        self._parser._end_input()
        self._count += len(documents)
        return documents

    @cython.binding(False)  # per piece: a method of the type's own, called without a function object between
    @cython.embedsignature.format("clinic")
    def snapshot(self, *, bint fresh=False):
        """The partial value of the document being read, ``MISSING`` between documents; as
        :meth:`StreamingJsonParser.snapshot`."""
        return self._parser.snapshot(fresh=fresh)

    @property
    def count(self):
        """How many documents were completed so far."""
        return self._count

    @property
    def skipped_lines(self):
        """JSON Lines: how many lines gave no document (empty, incomplete, or no value)."""
        return self._parser._skipped_lines

    @property
    def skipped(self):
        """JSON Lines: the numbers (from 1) of the latest skipped lines, at most the last 100."""
        return [] if self._parser._skipped is None else list(self._parser._skipped)


cdef bint _same_json(object a, object b) except -1:
    """Whether two readings hold the same JSON value, exactly (``1``, ``1.0`` and ``True`` differ; so does the order
    of members). What is one object in both is not walked: a snapshot shares its closed members with the one before,
    so this walks the open path, and a member a repeated key replaced (the pure twin's ``_same_json``)."""
    cdef list stack = [(a, b)]
    cdef object x, y, key_x, key_y, value_x, value_y
    cdef Py_ssize_t position = 0
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is dict:
            if len(<dict>x) != len(<dict>y):
                return False
            for (key_x, value_x), (key_y, value_y) in zip((<dict>x).items(), (<dict>y).items()):
                if key_x != key_y:
                    return False
                if value_x is not value_y:
                    stack.append((value_x, value_y))
        elif type(x) is list:
            if PyList_GET_SIZE(x) != PyList_GET_SIZE(y):
                return False
            for position in range(PyList_GET_SIZE(x)):
                value_x = (<list>x)[position]
                value_y = (<list>y)[position]
                if value_x is not value_y:
                    stack.append((value_x, value_y))
        elif x != y:
            return False
    return True


@cython.auto_pickle(False)  # a stream, not a value
cdef class ToolCallArgumentsStream:
    """ToolCallArgumentsStream(*, stable=True)
--

The arguments of one streaming tool call: the raw text for the one full parse when the call ends, and a
    :class:`StreamingJsonParser` for the partial arguments in between.

    Built for a UI: the partial arguments read stably by default (``stable=True``: a value once shown stays shown, so
    ``[1, 2.5]`` streams as ``[1]``, ``[1, 2]``, ``[1, 2.5]``, never back to ``[1]``; ``stable=False`` is the
    reference's reading), and ``append`` returns the same object until the arguments change."""

    def __cinit__(self):
        self._stable = True
        self._start()

    def __init__(self, *, bint stable=True):
        if not stable:
            self._stable = False
            self._start()

    cdef _start(self):
        self._chunks = []
        self._text = ""
        # It shows snapshots: no change objects to discard.
        self._parser = StreamingJsonParser(changes=False, stable=self._stable)
        self._snapshot = MISSING
        self._arguments = {}
        self._result = None

    @property
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def text(self):
        """The raw argument text received so far."""
        if self._chunks:
            self._chunks.insert(0, self._text)
            self._text = "".join(self._chunks)
            self._chunks = []
        return self._text

    @cython.binding(False)  # per piece: a method of the type's own, called without a function object between
    @cython.embedsignature.format("clinic")
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def append(self, delta):
        """Append a piece of argument text; return the partial arguments: a new object where they changed, else the
        same one.

        Raises ``ValueError`` after :meth:`finish`: the call has ended (its result would not show the piece)."""
        if not isinstance(delta, str):
            raise TypeError(not_str("delta", delta))
        if self._result is not None:
            raise ValueError(APPEND_AFTER_FINISH)
        if delta:
            self._chunks.append(delta)
            self._parser._feed(delta)
        return self._current_arguments()

    cdef dict _current_arguments(self):
        snapshot = self._parser.snapshot()
        if snapshot is not self._snapshot:
            self._snapshot = snapshot
            if type(snapshot) is dict:
                # A new snapshot may hold the same value (a number or literal ended, a container closed): the
                # arguments shown stay the same object. Compared while the open path is small (what a snapshot copies
                # anyway), so the comparison costs what the copy did; past that, a new snapshot is shown as new.
                parser: StreamingJsonParser = self._parser
                if not (
                    parser._open_members <= FREE_MEMBERS
                    and parser._string_length <= FREE_STRING_CHARS
                    and _same_json(self._arguments, snapshot)
                ):
                    self._arguments = <dict>snapshot
            elif self._arguments:
                self._arguments = {}  # a root that is not an object shows no arguments
        return self._arguments

    def replace(self, text):  # (text and append hold the stream's critical section)
        """Take the provider's complete argument text so far.

        Where it continues the text so far, the missing piece is appended and returned as ``delta``; otherwise the
        stream starts over with ``text`` and ``delta`` is None. Either way ``arguments`` are the partial arguments.
        Raises ``ValueError`` after :meth:`finish`.
        """
        if not isinstance(text, str):
            raise TypeError(_shared.not_str("text", text))
        if self._result is not None:
            raise ValueError(REPLACE_AFTER_FINISH)
        current = self.text
        if text.startswith(current):
            delta = text[len(current):]
            return ToolCallReplace(delta, self.append(delta))
        self._start()
        return ToolCallReplace(None, self.append(text))

    def finish(self):  # (text holds the stream's critical section)
        """The final arguments: one strict parse of the complete text, which reports malformed arguments (the
        arguments the last ``append`` returned, the same object, where they are the final ones). The call has ended:
        a later :meth:`finish` returns the same result, and :meth:`append` or :meth:`replace` raise ``ValueError``."""
        if self._result is None:
            result = parse_tool_call_arguments(self.text)
            if result.error is None and _same_json(self._arguments, result.arguments):
                result = ToolCallResult(self._arguments, None)
            self._result = result
        return self._result
