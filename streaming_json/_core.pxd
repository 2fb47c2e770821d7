# The compiled core's interfaces, for other Cython code to cimport: the change types, the parser and its C state.
from cpython.object cimport PyObject
from libc.stdint cimport uint32_t

ctypedef uint32_t codepoint  # a code point, as plain C arithmetic (not Cython's character type)


cdef extern from *:
    """
    /* Whether nobody but the caller holds `op`, so that it may be reused or changed in place: what the compiled core
       and relay ask before they touch an object they handed out. With the GIL, a reference count of one. On a
       free-threaded build that sum can be read while another thread takes a reference, so CPython's own test is
       used (3.14: PyUnstable_Object_IsUniquelyReferenced; 3.13t: the same test, spelled out): owned by this thread,
       one local reference, no shared one. Everything that includes this file (the core, the relay) asks the same. */
    #if defined(Py_GIL_DISABLED) && PY_VERSION_HEX >= 0x030E0000
    #define streaming_json_unique(op) PyUnstable_Object_IsUniquelyReferenced(op)
    #elif defined(Py_GIL_DISABLED)
    #define streaming_json_unique(op) (_Py_IsOwnedByCurrentThread(op) && (op)->ob_ref_local == 1 \
                                       && _Py_atomic_load_ssize_relaxed(&(op)->ob_ref_shared) == 0)
    #else
    #define streaming_json_unique(op) (Py_REFCNT(op) == 1)
    #endif
    """
    bint streaming_json_unique(PyObject* op) noexcept nogil


cdef struct Frame:
    # One open container. The references are owned by the parser's stack.
    PyObject* container     # the working dict or list: never returned, copied into snapshots
    PyObject* key           # an object's current member key (str), where its open value goes; NULL before one
    PyObject* path          # tuple from the root, or NULL below the reporting depth
    # Flags and phase in a byte each: an open level is 40 bytes.
    unsigned char is_object
    unsigned char holds_container   # a container was placed in it: once closed, or copied, the GC must track it
    unsigned char reported          # its children are reported one by one (within the reporting depth)
    unsigned char on_items_path     # its path begins ``items_at`` (or is all of it)
    unsigned char collects          # the array at ``items_at``: append_items() returns its finished elements
    unsigned char phase
    unsigned long long serial   # which open container this is (a kept snapshot's copy says which it copies)


cdef enum:
    SHOWN_DEPTH = 8  # a snapshot whose open path is this deep at most is kept whole, to grow in place


cdef struct ShownLevel:
    # One open container as a kept snapshot copied it.
    PyObject* copy                  # the copy (the record holds the root one, each other is held by its parent copy)
    PyObject* child                 # what its open slot holds: the next copy, the open string's str; NULL: nothing
    unsigned long long serial       # the open container it copies (Frame.serial)
    unsigned long long copy_tag     # streaming_json_copy_tag of the copy as built (changed by a user: not reused)
    unsigned long long work_tag     # and of the open container then (a dict's version, a list's size)
    PyObject* key                   # an object's open key then (compared, never read)
    bint has_word                   # a pending word's value was added to the copy (not the open container's own)


cdef struct Shown:
    # A snapshot the parser built, kept to update in place once nobody else holds it: the snapshot itself (where its
    # open path is at most SHOWN_DEPTH deep) and its str of the open string.
    PyObject* root                  # the snapshot (owned), or NULL where only the str is kept
    PyObject* text                  # its str of the open string (owned), or NULL
    Py_ssize_t room                 # how many characters that str has room for
    unsigned long long string_serial    # which open string it shows (StreamingJsonParser._string_serial)
    Py_ssize_t depth                # the levels kept: the open path's depth, or 0 where root is NULL
    ShownLevel levels[SHOWN_DEPTH]


cdef class JsonChange:
    cdef readonly tuple path


cdef class SetChange(JsonChange):
    cdef readonly object value


cdef class AppendChange(JsonChange):
    cdef readonly str text


cdef class DoneChange(JsonChange):
    cdef readonly object value


cdef class SourceChange(JsonChange):
    cdef readonly str text
    cdef readonly bint last


cdef class StreamingJsonParser:
    # What it reports and how it reads.
    cdef Py_ssize_t _report_depth       # a container at this depth is reported whole
    cdef object _shown_word             # and the value it last showed
    cdef Py_ssize_t _prose_literal_length

    # Documents (set up by StreamingJsonDocuments): where finished root values go instead of ending the reading,
    # and, in JSON Lines, the line count and the lines that gave no document.
    cdef list _documents
    cdef Py_ssize_t _line_number
    cdef Py_ssize_t _skipped_lines
    cdef object _skipped                # deque of the latest skipped line numbers, made at the first one

    # The open path: a growable C array of frames, root first.
    cdef Frame* _frames
    cdef Py_ssize_t _depth
    cdef Py_ssize_t _frames_capacity
    cdef Py_ssize_t _dropped_depth      # open containers inside a dropped value
    cdef Py_ssize_t _open_members       # members and elements held by open containers
    cdef object _root_value

    # The open string: its decoded text in the narrowest kind that holds it (as CPython stores a str, so that
    # showing it is one memcpy), how much of it is reported, and an unterminated escape.
    cdef object _string_path            # tuple, or None where not reported
    cdef char* _string_buffer           # where its characters are: _scratch, or the characters of _string_store
    cdef Py_ssize_t _string_length
    cdef Py_ssize_t _string_capacity    # characters the buffer takes (no more once the store is shown)
    # Where the characters go: the parser's own buffer (kept from one string to the next while small) until a
    # snapshot shows the string; from then on a str with room, nobody else's, that the next snapshot shows as it is
    # (see _make_room): the open string's text is then in the strs snapshots show, and nowhere else.
    cdef char* _scratch
    cdef Py_ssize_t _scratch_bytes
    cdef PyObject* _string_store        # that str (owned), or NULL
    cdef Py_ssize_t _store_room         # the characters it has room for
    cdef Py_ssize_t _string_flushed
    # The last two snapshots built, to update in place once nobody else holds them; the room of the last
    # str made for the open string; counters that tell open containers and open strings apart.
    cdef Shown* _shown                  # two records, made at the first snapshot of an open path, or NULL
    cdef Py_ssize_t _text_room
    cdef unsigned long long _frame_serial
    cdef unsigned long long _string_serial

    # The open word: a number's text and state, or a literal's progress.
    cdef Py_ssize_t _word_length
    cdef Py_ssize_t _mantissa_length
    cdef char* _word_buffer
    cdef Py_ssize_t _word_capacity

    # Per-append output, snapshots and the copy credit.
    cdef list _changes
    cdef long long _credit
    cdef object _last_snapshot

    # Input: str, or UTF-8 bytes with an incomplete character carried to the next piece.
    cdef bytes _utf8_tail

    # Source text: the patterns, the depths that have one (a bit each), and the value whose text is reported: its
    # kind, path, depth and where it starts in the text being read. Positions count from the start of that text
    # (read_text reads it in slices, from _slice_start on); the text after the root value starts at _unused_from.
    cdef tuple _source_patterns
    cdef unsigned long long _source_lengths
    cdef tuple _source_path
    cdef Py_ssize_t _source_depth
    cdef Py_ssize_t _source_from
    cdef str _reading
    cdef Py_ssize_t _slice_start
    cdef Py_ssize_t _unused_from
    cdef list _unused
    # append_source(): the source text of the piece being read is wanted as text (where it is its only change).
    cdef str _source_text
    # items_at: the path of the array whose finished elements append_items() returns (its length; -1 without one),
    # and the elements the piece being read finished, collected while append_items() reads it.
    cdef tuple _items_at
    cdef Py_ssize_t _items_depth
    cdef list _items

    # The flags, modes, kinds and code points of the groups above, together, so that the object has no padding
    # between them (an idle parser is about 500 bytes).
    cdef codepoint _prose_bracket           # in prose, a bracket waiting for the character that says if JSON starts
    cdef codepoint _string_maxchar
    cdef codepoint _piece_maxchar           # the largest character since the last flush
    cdef codepoint _high_surrogate          # a high-surrogate escape held until we see what follows, or 0
    cdef unsigned char _emit_changes        # set and append changes
    cdef unsigned char _emit_done           # done events
    cdef unsigned char _prose               # skip prose around the document
    cdef unsigned char _stable              # a pending number, once shown, stays shown ("1." shows 1)
    cdef unsigned char _prose_literal_kind  # and, after "[", a literal's start read so far: which, and how much
    cdef unsigned char _lines
    cdef unsigned char _line_done
    cdef unsigned char _line_has_text
    cdef unsigned char _root_done
    cdef unsigned char _mode
    cdef unsigned char _string_role
    cdef unsigned char _string_reported
    cdef unsigned char _string_kind         # bytes a character in the buffer: 1, 2 or 4
    cdef unsigned char _store_shown         # a snapshot shows it: it takes no more characters
    cdef unsigned char _string_shown        # a snapshot showed the open string
    cdef unsigned char _escape[6]           # an escape's characters so far (ASCII: a backslash, u, hex digits)
    cdef unsigned char _escape_length
    cdef unsigned char _read_from_string    # the piece being read is plain characters of the open string, all of it
    cdef unsigned char _newest              # which of the two is the newest
    cdef unsigned char _word_role
    cdef unsigned char _word_kind
    cdef unsigned char _word_state
    cdef unsigned char _mantissa_is_float
    cdef unsigned char _dirty
    cdef unsigned char _busy
    cdef unsigned char _input_kind
    cdef unsigned char _source_waiting
    cdef unsigned char _source_kind
    cdef unsigned char _source_text_wanted
    cdef unsigned char _items_wanted

    # The entry points of compiled layers (and of this module's wrappers): read a piece, its changes going to
    # _changes; append_source() without a Python call (the str, or the list of changes).
    cdef int _feed(self, object text) except -1
    cdef object _append_source(self, object text)
    cdef list _append_items(self, object text)
    cdef str _decode(self, object text)
    cdef int _read(self, str text) except -1
    cdef int _read_structure(self, codepoint char) except -1
    cdef int _track_source(self, codepoint char, Py_ssize_t position) except -1
    cdef int _begin_source(self, int kind, Py_ssize_t position) except -1
    cdef int _report_source(self, str text, Py_ssize_t end, bint last) except -1
    cdef int _end_source(self, Py_ssize_t end) except -1
    cdef Py_ssize_t _value_frame(self) noexcept
    cdef object _place(self, Py_ssize_t index, object value)
    cdef int _value_finished(self, Py_ssize_t index, object value) except -1
    cdef int _report_set(self, tuple path, object value) except -1
    cdef int _report_done(self, tuple path, object value) except -1
    cdef int _begin_container(self, bint is_object) except -1
    cdef int _push_frame(self, object container, bint is_object, object path, bint on_items_path) except -1
    cdef bint _child_on_items_path(self, Py_ssize_t index) noexcept
    cdef int _close_container(self) except -1
    cdef void _release_frames(self) noexcept
    cdef int _begin_string(self) except -1
    cdef int _reserve_string(self, Py_ssize_t extra, codepoint maxchar) except -1
    cdef int _make_room(self, Py_ssize_t needed) except -1
    cdef int _to_scratch(self, Py_ssize_t needed, int kind) except -1
    cdef int _to_store(self, Py_ssize_t needed) except -1
    cdef int _take_store(self, PyObject* text, Py_ssize_t room) except -1
    cdef void _release_store(self) noexcept
    cdef int _widen_string(self, codepoint maxchar) except -1
    cdef int _store_char(self, codepoint char) except -1
    cdef int _add_char(self, codepoint char) except -1
    cdef int _read_escape_char(self, codepoint char) except -1
    cdef int _add_code_unit(self, codepoint unit) except -1
    cdef str _string_slice(self, Py_ssize_t start)
    cdef object _flush_string_piece(self, str added=*)
    cdef int _close_string(self) except -1
    cdef int _begin_word(self, codepoint first) except -1
    cdef object _word_number(self, Py_ssize_t length, bint is_float)
    cdef object _finished_word(self)
    cdef object _pending_word(self)
    cdef int _end_word(self) except -1
    cdef int _reset_document(self) except -1
    cdef int _skip_line(self) except -1
    cdef int _end_line(self) except -1
    cdef int _end_input(self) except -1
    cdef object _open_string(self, bint in_kept_copy)
    cdef void _forget_shown(self) noexcept
    cdef void _forget_record(self, Shown* record) noexcept
    cdef Py_ssize_t _reusable_levels(self) noexcept
    cdef int _keep_text_in(self, Shown* record, object text) except -1
    cdef int _keep_text(self, object text) except -1
    cdef object _copy_open_path(self)
    cdef object _build_snapshot(self)


cdef class StreamingJsonDocuments:
    cdef StreamingJsonParser _parser
    cdef Py_ssize_t _count
    cdef bint _finished


cdef class ToolCallArgumentsStream:
    cdef bint _stable
    cdef list _chunks
    cdef str _text
    cdef StreamingJsonParser _parser
    cdef object _snapshot
    cdef dict _arguments
    cdef object _result  # the ToolCallResult, once finished (None before)

    cdef _start(self)
    cdef dict _current_arguments(self)
