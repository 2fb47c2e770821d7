# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
# cython: embedsignature=True, freethreading_compatible=True
"""``ModelOutputStream.feed``'s fast paths, compiled: the twin of ``_relay_pure.py``, whose documentation gives the
rules (the same behaviour, one suite for both). A stream takes this relay where its parser is the compiled core's.

What compiling buys, a piece: the stream's ``feed`` is this type's own method; the search for a stop character is
``PyUnicode_FindChar``; the parser's ``append_source()`` is a C call through the core's ``.pxd``; a string value's
text is looked over for what JSON escapes, and goes out as itself where nothing is (``json``'s encoder otherwise);
the event is a tuple allocated and filled in place, in a list; where the caller let go of the list and the event the
relay returned last, they are refilled instead (``relay_events``). No Python frame runs between the caller and the
parser.
"""

cimport cython
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_XDECREF

from streaming_json._core cimport StreamingJsonParser, streaming_json_unique  # no-cython-lint (in C below)

from json.encoder import encode_basestring

from ._events import ArgumentsDelta, ContentDelta

__all__ = ["COMPILED_PARSER", "Relay"]

COMPILED_PARSER = StreamingJsonParser  # the parser this relay reads with (a stream with another takes the pure one)


cdef extern from "Python.h":
    Py_ssize_t PyUnicode_FindChar(object text, Py_UCS4 char, Py_ssize_t start, Py_ssize_t end,
                                  int direction) except -2
    Py_ssize_t PyUnicode_GET_LENGTH(object text)
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)
    object PyUnicode_Substring(object text, Py_ssize_t start, Py_ssize_t end)
    bint Py_UNICODE_ISSPACE(Py_UCS4 char)


cdef extern from *:
    """
    /* The piece's one event in a list: the list the relay returned last, refilled in place where nobody else holds
       it or its one event (the caller read them and let them go), as CPython's zip() reuses its result tuple; else
       a new event (a NamedTuple: a tuple subtype without a __dict__, allocated by its type and filled in place) in a
       new list, which the relay keeps. What anyone holds never changes; what nobody holds, nobody sees. */
    static PyObject* relay_events(PyObject** last, PyTypeObject* type, PyObject* first, PyObject* second) {
        PyObject* list = *last;
        PyObject* event;
        PyObject* old;
        Py_ssize_t size = second == NULL ? 1 : 2;
        if (list != NULL && streaming_json_unique(list) && PyList_GET_SIZE(list) == 1) {
            event = PyList_GET_ITEM(list, 0);
            if (Py_TYPE(event) == type && streaming_json_unique(event) && Py_SIZE(event) == size) {
                old = PyTuple_GET_ITEM(event, 0);
                Py_INCREF(first);
                PyTuple_SET_ITEM(event, 0, first);
                Py_DECREF(old);  /* a str or an int: no code runs */
                if (second != NULL) {
                    old = PyTuple_GET_ITEM(event, 1);
                    Py_INCREF(second);
                    PyTuple_SET_ITEM(event, 1, second);
                    Py_DECREF(old);
                }
                Py_INCREF(list);
                return list;
            }
        }
        event = type->tp_alloc(type, size);
        if (event == NULL) return NULL;
        Py_INCREF(first);
        PyTuple_SET_ITEM(event, 0, first);
        if (second != NULL) {
            Py_INCREF(second);
            PyTuple_SET_ITEM(event, 1, second);
        }
        list = PyList_New(1);
        if (list == NULL) {
            Py_DECREF(event);
            return NULL;
        }
        PyList_SET_ITEM(list, 0, event);
        Py_INCREF(list);
        Py_XSETREF(*last, list);
        return list;
    }
    """
    object relay_events(PyObject** last, PyTypeObject* type, PyObject* first, PyObject* second)


cdef enum:
    OFF
    ARGUMENTS
    STRING
    CONTENT

cdef type ARGUMENTS_DELTA = ArgumentsDelta
cdef type CONTENT_DELTA = ContentDelta
cdef object escape = encode_basestring  # C's c_encode_basestring: a string's JSON, quotes included


cdef inline bint holds(str text, Py_UCS4 char):
    """Whether ``char`` is in ``text``: a loop over a token's few characters, ``PyUnicode_FindChar`` over more."""
    cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text)
    cdef int kind
    cdef void* data
    cdef Py_ssize_t index
    if length > 16:
        return PyUnicode_FindChar(text, char, 0, length, 1) >= 0
    kind = PyUnicode_KIND(text)
    data = PyUnicode_DATA(text)
    for index in range(length):
        if PyUnicode_READ(kind, data, index) == char:
            return True
    return False


cdef bint needs_escapes(str text):
    """Whether JSON writes ``text`` other than as itself: a quote, a backslash or a control character in it."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t index
    cdef Py_UCS4 char
    for index in range(PyUnicode_GET_LENGTH(text)):
        char = PyUnicode_READ(kind, data, index)
        if char < 0x20 or char == 0x22 or char == 0x5C:
            return True
    return False


@cython.final
@cython.auto_pickle(False)
cdef class Relay:
    """One stream's fast paths (see ``_relay_pure.py``). ``general(text)`` is the stream's general path;
    ``changes(text, changes)`` the general path for a piece the parser has read and reported changes of."""

    cdef public bint trim_held  # a string value's last newline, held back in case the value ends after it
    cdef public str strip_held  # a stripped string value's last blanks, held back until text follows them
    cdef bint _strip
    cdef object _general
    cdef object _changes
    cdef int _mode
    cdef StreamingJsonParser _parser
    cdef Py_UCS4 _stop
    cdef Py_UCS4 _second
    cdef Py_UCS4 _trim
    cdef str _firsts
    cdef list _chunks
    cdef object _index
    cdef PyObject* _last  # the list returned last (owned), to refill where nobody holds it (relay_events)

    def __dealloc__(self):
        Py_XDECREF(self._last)
        self._last = NULL

    def __init__(self, general, changes):
        self.trim_held = False
        self.strip_held = ""
        self._strip = False
        self._general = general
        self._changes = changes
        self._mode = OFF
        self._parser = None
        self._firsts = ""
        self._chunks = []
        self._index = -1

    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def off(self):
        """The next piece takes the general path."""
        self._mode = OFF
        self._parser = None
        self._chunks = []

    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def arguments(self, StreamingJsonParser parser not None, str stop not None, list chunks not None, index):
        """The next piece may be more of call ``index``'s JSON arguments, read by ``parser``, where it holds no
        ``stop``; their text goes out and onto ``chunks``."""
        self._mode = ARGUMENTS
        self._parser = parser
        self._stop = stop[0]
        self._chunks = chunks
        self._index = index

    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def string(self, str stop not None, str second not None, str trim not None, list chunks not None, index,
               bint strip=False):
        """The next piece may be more of a string value's text in call ``index``, where it holds neither ``stop``
        nor ``second``; a last ``trim`` character is held back (``""``: none); with ``strip``, its last blanks are
        (onto ``strip_held``, which goes out before the next text)."""
        self._mode = STRING
        self._strip = strip
        self._stop = stop[0]
        self._second = second[0]
        self._trim = trim[0] if trim else 0
        self._chunks = chunks
        self._index = index

    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def content(self, str firsts not None):
        """The next piece may be plain content, where it holds none of ``firsts``."""
        self._mode = CONTENT
        self._firsts = firsts

    @cython.binding(False)  # per piece: the stream's feed, a method of the type's own
    @cython.critical_section  # one thread at a time in it, on a free-threaded build (nothing with the GIL)
    def feed(self, text):
        """The stream's ``feed``: the piece read by a fast path where one takes it, else by the general path."""
        cdef object found
        cdef str piece
        cdef Py_ssize_t length, end
        cdef Py_UCS4 char
        cdef int kind
        cdef void* data
        if self._mode == OFF or type(text) is not str:
            return self._general(text)
        piece = <str>text
        if self._mode == ARGUMENTS:
            if holds(piece, self._stop):
                return self._general(text)
            found = self._parser._append_source(piece)
            if type(found) is not str:
                return self._changes(text, found)
            self._chunks.append(found)
            return relay_events(&self._last, <PyTypeObject*>ARGUMENTS_DELTA, <PyObject*>self._index, <PyObject*>found)
        if self._mode == STRING:
            if holds(piece, self._stop) or holds(piece, self._second):
                return self._general(text)
            if self._strip:
                if PyUnicode_GET_LENGTH(self.strip_held):
                    piece = self.strip_held + piece
                length = end = PyUnicode_GET_LENGTH(piece)
                kind, data = PyUnicode_KIND(piece), PyUnicode_DATA(piece)
                while end and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, end - 1)):
                    end -= 1
                if end < length:
                    self.strip_held = PyUnicode_Substring(piece, end, length)
                    piece = PyUnicode_Substring(piece, 0, end)
                else:
                    self.strip_held = ""
            if self._trim:
                if self.trim_held:
                    piece = chr(self._trim) + piece
                length = PyUnicode_GET_LENGTH(piece)
                if length and PyUnicode_READ(PyUnicode_KIND(piece), PyUnicode_DATA(piece), length - 1) == self._trim:
                    piece = PyUnicode_Substring(piece, 0, length - 1)
                    self.trim_held = True
                else:
                    self.trim_held = False
            if PyUnicode_GET_LENGTH(piece) == 0:
                return []
            if needs_escapes(piece):
                piece = escape(piece)
                piece = PyUnicode_Substring(piece, 1, PyUnicode_GET_LENGTH(piece) - 1)  # (less the quotes)
            self._chunks.append(piece)
            return relay_events(&self._last, <PyTypeObject*>ARGUMENTS_DELTA, <PyObject*>self._index, <PyObject*>piece)
        for char in self._firsts:
            if holds(piece, char):
                return self._general(text)
        if PyUnicode_GET_LENGTH(piece) == 0:
            return []
        return relay_events(&self._last, <PyTypeObject*>CONTENT_DELTA, <PyObject*>piece, NULL)
