"""vLLM's own tool-parser tests, from its sdist, run twice on this machine: with vLLM's parsers, and with ours in their
place (``vllm_own_tests_plugin.py``), each run a pytest of its own in a child process; and what each test did in
each run.

The tests that do not pass with ours are listed here, each with why: they read a vLLM parser's private state or
mock its internals (``NOT_APPLICABLE``), they encode a choice of vLLM's that ours does not make (``VLLM_CHOICES``:
text dropped, which issue 20's bug table counts as a loss, or a reading that vLLM's own parsers disagree on), or they
need a change to ``ModelOutputStream`` (``STREAM_NEEDS``, issue 30's list). ``test_vllm_own_tests.py`` checks that
every other test vLLM's parsers pass passes with ours, and that each listed one still fails with ours (so that the
lists stay true).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Optional

from .sdists import unpacked_sdist

VLLM_VERSION = "0.33.0"
HERE = Path(__file__).resolve().parent

# Per format, vLLM's test files that read it (tests/tool_parsers/).
FILES = {
    "hermes": ["tests/tool_parsers/test_hermes_tool_parser.py"],
    "llama3_json": ["tests/tool_parsers/test_llama3_json_tool_parser.py"],
    "granite": ["tests/tool_parsers/test_granite_tool_parser.py"],
    "deepseek_v3": ["tests/tool_parsers/test_deepseekv3_tool_parser.py"],
    "deepseek_v31": ["tests/tool_parsers/test_deepseekv31_tool_parser.py"],
    "kimi_k2": ["tests/tool_parsers/test_kimi_k2_tool_parser.py"],
    "qwen3_coder": ["tests/tool_parsers/test_qwen3coder_tool_parser.py"],
    "glm47": ["tests/tool_parsers/test_glm47_moe_tool_parser.py", "tests/tool_parsers/test_glm4_moe_tool_parser.py"],
    "minimax_m2": ["tests/tool_parsers/test_minimax_m2_tool_parser.py"],
    "deepseek_v32": ["tests/tool_parsers/test_deepseekv32_tool_parser.py"],
    "gemma4": ["tests/tool_parsers/test_gemma4_tool_parser.py"],
    "pythonic": ["tests/tool_parsers/test_pythonic_tool_parser.py"],
    "llama4_pythonic": ["tests/tool_parsers/test_llama4_pythonic_tool_parser.py"],
    "step3": ["tests/tool_parsers/test_step3_tool_parser.py"],
    "step3p5": ["tests/tool_parsers/test_step3p5_tool_parser.py"],
    "hy_v3": ["tests/tool_parsers/test_hy_v3_tool_parser.py"],
    "ernie45": ["tests/tool_parsers/test_ernie45_moe_tool_parser.py"],
    "granite4": ["tests/tool_parsers/test_granite4_tool_parser.py"],
    "longcat": ["tests/tool_parsers/test_longcat_tool_parser.py"],
    "olmo3": ["tests/tool_parsers/test_olmo3_tool_parser.py"],
    "deepseek_v4": ["tests/tool_parsers/test_deepseekv4_tool_parser.py"],
    "minimax_m3": ["tests/tool_parsers/test_minimax_m3_tool_parser.py"],
    "kimi_k3": ["tests/tool_parsers/test_kimi_k3_named_tool_choice.py"],
}

# vLLM's engine tests that replay a format's token streams at chunk sizes 1, 2, 3, 5, 11, 23 and whole, through the
# parser class vLLM builds for it (tests/parser/engine/), each group a run of its own
# (their conftest is that folder's).
ENGINE_FILES = {
    "granite": ["tests/parser/engine/test_granite.py"],
    "seed_oss": ["tests/parser/engine/test_seed_oss.py"],
    "glm47": ["tests/parser/engine/test_glm47_moe.py"],
    "minimax_m2": ["tests/parser/engine/test_minimax_m2.py"],
    "deepseek_v32": ["tests/parser/engine/test_deepseek_v32.py"],
    "gemma4": ["tests/parser/engine/test_gemma4_streaming_reasoning.py"],
    "deepseek_v4": ["tests/parser/engine/test_deepseek_v4.py"],
    "deepseek_v41": ["tests/parser/engine/test_deepseek_v41.py"],
    "minimax_m3": ["tests/parser/engine/test_minimax_m3.py"],
}
GROUPS = {"tests/tool_parsers": FILES, "tests/parser/engine": ENGINE_FILES}

_TP = "tests/tool_parsers/"
_EN = "tests/parser/engine/"


def _each(file: str, why: str, *tests: str) -> dict[str, str]:
    """``why`` for each of ``tests`` of ``file`` (a test function's name stands for all its parametrizations)."""
    return {f"{file}::{test}": why for test in tests}


# Why the typed formats' tests do not apply, or encode a choice of vLLM's, or need a stream change (each is listed
# below by the test it is why for).
_ENGINE_STATE = (
    "reads the engine parser's private state (parser_engine_config, _engine, skip_tool_parsing, "
    "_build_extracted_result, reasoning_end_token_ids)"
)
_SERVING_PARSER_LACKS = (
    "calls a method of vLLM's engine Parser that the Parser vLLM's serving layer composes over a ToolParser and a "
    "ReasoningParser (ParserManager.get_parser's DelegatingParser, here over ours) does not have: finish_streaming, "
    "extract_content_ids (the serving layer calls them on its engine parsers only)"
)
_ENGINE_CONFIG = (
    "builds the engine Parser with its private parser_engine_config (the Gemma 4 argument-value extender on and "
    "off) and compares the two"
)
_TURNS = (
    "is_reasoning_end over a prompt's ids across chat turns (a previous turn's end marker, the template's thinking "
    "switch in chat_template_kwargs, a call without the end marker): vLLM's engine knows the family's turn tokens; "
    "our reasoning parser reads the last begin or end marker of the ids only"
)
_TEMPLATE_OPENS = (
    "vLLM's engine for the family starts an output inside the reasoning block unless told otherwise (its template "
    "opens it), so text without the begin marker is reasoning; ours starts there only where the output or the "
    "prompt's ids open the block (the test gives no prompt)"
)
_GRANITE_LONE_OBJECT = (
    "vLLM's Granite engine reads a lone call object after <|tool_call|> (no array) as no call; ours reads it as the "
    "call the model wrote"
)
_NO_TOOLS_NO_CALLS = (
    "the test's request has no tools, so its tool_choice is 'none' (vLLM's protocol default), and the Parser vLLM's "
    "serving layer composes (DelegatingParser) strips the calls from every delta, as it does over vLLM's own "
    "engine-based tool parsers; vLLM's engine Parser, driven directly, parses them anyway"
)
_GEMMA_BARE_THOUGHT = (
    "vLLM's Gemma 4 engine reads an output that opens with a bare 'thought' (its <|channel> opener left out) as "
    "reasoning; ours reads the block where its opener is written (and the request has no tools: tool_choice 'none', "
    "whose calls the serving layer's DelegatingParser strips)"
)
_GEMMA_PROMPT_UNDECODABLE = (
    "the test's mock tokenizer cannot decode the prompt's 'thought' and newline ids (arbitrary ids it decodes as "
    "'?3000?'): our reasoning parser reads Gemma 4's opener, several tokens, from the prompt's decoded text; vLLM's "
    "engine checks the <|channel> id alone"
)
_PYTHONIC_REGEX = "patches the vLLM parser's private regex (TOOL_CALL_REGEX)"
_CALL_IN_ERROR_DROPPED = (
    "vLLM's whole-output path drops a call in error (malformed, cut off, or to a tool not in the request) and "
    "returns the others, the dropped call's text lost; ours gives such an output back whole, as written, as content "
    "(issue 20 counts dropped text as a loss)"
)
_UNKNOWN_TOOL_TAKEN = (
    "calls a tool the request does not have (the tests' tools name others): vLLM's Gemma 4 and Qwen3 parsers take "
    "it (their engine's validate_tool_names=False), its GLM 4.7 and MiniMax M2 parsers reject it "
    "(validate_tool_names=True, test_minimax_m2.py's test_mixed_tool_names_only_return_valid): its parsers "
    "disagree; ours rejects it in every format"
)
_BLANKS_DROPPED = (
    "vLLM drops the blanks between calls, or before the first, from content (content '\\n' becomes none); ours "
    "keeps every character of content"
)
_WRAPPER_UNWRAPPED = (
    "vLLM unwraps a lone parameter named arguments or input that holds the arguments' JSON (a repair that rewrites "
    "what the model wrote, in a tool whose schema has no such parameter); ours gives the parameters as written"
)
_DSML_RETYPED = (
    'string="false" values (JSON, the model says): vLLM retypes them by the schema (5.0 to 5, null to "null") and '
    "takes text that is no JSON as a string; ours keeps the model's JSON as written and ends the call with an "
    "error where the text is no JSON (tests/test_model_output_formats.py's "
    "test_deepseek_v32_says_which_values_are_json)"
)
_GEMMA_BARE_WORDS = (
    "without a schema, vLLM's Gemma 4 engine gives bare words as strings (3.14 as '3.14', true as 'true'), and "
    "with one turns 5.0 into 5; ours reads a bare word by Gemma's own syntax (a number, true, false, null) and "
    "keeps a number as written"
)
_GEMMA_QUOTED_KEY = (
    'a key written in Gemma 4\'s string quotes (<|"|>quoted key<|"|>:...): the stream reads bare keys only'
)
_NAMESPACE_TOOLS = (
    "a Responses API namespace tool: vLLM names the call mcp__NAMESPACE__TOOL and finds it among the namespace's "
    "tools; the stream's tools= reads the request's flat tool names only"
)
_UNKNOWN_TOOL_STARTS = (
    "a call to a tool not in the request must not start: the stream sends its start (the name is read) and then "
    "ends it with an error"
)

_LLAMA = "tests/tool_parsers/test_llama3_json_tool_parser.py::"
_KIMI = "tests/tool_parsers/test_kimi_k2_tool_parser.py::"

_TEXT_BETWEEN_CALLS_DROPPED = (
    "vLLM's whole-output path gives the text before the first call as content and drops what comes between and "
    "after the calls ('hi' between two); ours gives every character outside the calls as content (issue 20 counts "
    "dropped text as a loss)"
)

_TEXT_AFTER_CALLS_DROPPED = (
    "vLLM drops the text after the tool block (a call ends the turn: 'Done.', 'post', a wrapper's end tag it does "
    "not read as one); ours gives every character outside the calls as content (issue 20 counts dropped text as a "
    "loss)"
)
_ORPHAN_SECTION_END_LEAKS = (
    "invokes written without the tool block's opener (DeepSeek V4 at long context, vLLM #48931) are read as calls, "
    "but the block's end marker after them (</\uff5cDSML\uff5ctool_calls>) reaches content: the stream does not "
    "take a block's end marker as one where its opener was left out"
)
_IMPLICIT_REASONING_END = (
    "a tool block opened inside the reasoning block (</think> left out) must end the reasoning, as vLLM's DeepSeek V4 "
    "engine does: ours keeps the block reasoning up to </think>, the calls in it; and (but "
    "test_thinking_false_explicit_think_then_tool_call) the test opens the reasoning block by chat_template_kwargs "
    "alone, with no prompt, where ours starts in content"
)
_DSML_BARE_PARAMETER = (
    "a DSML parameter without its string attribute: vLLM reads its value as JSON where it is JSON, else as a string "
    "('Paris'); ours reads it as string=\"false\" (JSON, as written) and ends the call with an error where it is no "
    "JSON (the whole output is then content; streamed, the call ends with that error)"
)
_UNKNOWN_TOOL_READ = (
    "the calls name tools the request does not have (its tools are another's: 'stub', or 'create_order' for a call "
    "to 'other'): vLLM's DeepSeek V4.1 and MiniMax-M3 engines read them; ours ends a call to a tool not in the "
    "request with an error in every format, and the whole output is then content"
)
_LEADING_ZERO_INTEGER = (
    "an integer parameter written with a leading zero (a zip code, 018956): vLLM reads it with int() as 18956, "
    "dropping the zero; ours reads an integer by JSON's syntax, where 018956 is none, so the call ends with an error "
    "(the whole output is content; streamed, the element tree was sent as a string before the error)"
)
_M3_MALFORMED_ELEMENTS = (
    "MiniMax-M3 arguments with malformed elements (text between elements, a mismatched end tag, nesting deeper than "
    "128): vLLM keeps the parameters before the fault and drops the rest of the arguments' text; ours ends the call "
    "with an error (the whole output is then content); an element left open at the invoke's end is read up to it "
    "(note: 'unterminated', kept) where vLLM drops it"
)
_M3_BLOCK_END_NAMED_ELEMENT = (
    "an argument element named tool_call inside the arguments: its end tag is the tool block's end marker, where "
    "the stream ends the block (vLLM reads the elements' nesting first)"
)
_M3_INVOKE_OUTSIDE_BLOCK = (
    "an invoke written outside <tool_call>: vLLM's MiniMax-M3 parser gives it as content, while its DeepSeek V4 "
    "parser reads an invoke without its block as a call (vLLM #48931); ours reads the invoke as a call in both "
    "formats (the markup is no prose)"
)
_ARGUMENTS_WHOLE_AT_INVOKE_END = (
    "asserts that the arguments come whole in one delta at </invoke> (no argument text before it): ours streams each "
    "argument as it is read, the point of issue 45 (vLLM #47998: MiniMax-M3's arguments arrive only when the call "
    "closes)"
)
_SKIP_SPECIAL_TOKENS_KEPT = (
    "a request setting, not a reading: vLLM's MiniMax-M3 parser leaves skip_special_tokens on (M3's markers are "
    "non-special added tokens); ours turns it off wherever the markers are special or added tokens, or the "
    "tokenizer does not say (the test's fake tokenizer has an empty vocabulary): a marker lost is a call lost"
)
_K3_NAMED_WITHOUT_TAG = (
    "adjust_request for a named tool choice with no structural tag attached: vLLM's Kimi K3 parser rejects it "
    "(VLLMValidationError: only the XTML structural tag can force the call); ours returns the request as it is, "
    "so the named choice goes unforced (vLLM's serving layer attaches our structural tag first where strict tool "
    "calling is on, the default)"
)

NOT_APPLICABLE = {
    _LLAMA + "test_regex_timeout_handling": "patches the vLLM parser's private regex (tool_call_start_regex)",
    **_each("tests/tool_parsers/test_olmo3_tool_parser.py", _PYTHONIC_REGEX, "test_regex_timeout_handling"),
    **_each(
        "tests/tool_parsers/test_llama4_pythonic_tool_parser.py",
        _PYTHONIC_REGEX,
        "test_regex_timeout_handling",
    ),
    **_each(
        "tests/tool_parsers/test_pythonic_tool_parser.py",
        _PYTHONIC_REGEX,
        "test_regex_timeout_handling",
    ),
}

NOT_APPLICABLE.update(
    {
        **_each(
            _EN + "test_granite.py",
            _SERVING_PARSER_LACKS,
            "TestStreaming::test_incomplete_array_at_eos",
            "TestStreaming::test_parallel_calls_chunk_invariance",
            "TestStreaming::test_surrounding_text_streaming",
        ),
        **_each(
            _EN + "test_glm47_moe.py",
            _SERVING_PARSER_LACKS,
            "TestExtractContentIds::test_every_tool_call_after_think_end_kept",
            "TestExtractContentIds::test_falls_back_to_first_tool_call_of_turn",
            "TestExtractContentIds::test_falls_back_to_tool_call",
            "TestExtractContentIds::test_no_markers_returns_input_ids",
            "TestExtractContentIds::test_previous_turn_tool_call_ignored",
            "TestExtractContentIds::test_think_end_wins_over_later_tool_call",
            "TestExtractContentIds::test_thinking_disabled",
        ),
        **_each(
            _EN + "test_minimax_m2.py",
            _SERVING_PARSER_LACKS,
            "TestReasoning::test_extract_content_ids_after_end_token",
            "TestReasoning::test_extract_content_ids_without_end_token",
        ),
        **_each(
            _EN + "test_deepseek_v32.py",
            _SERVING_PARSER_LACKS,
            "TestStreaming::test_streaming_wrapper_unwrap_consistency",
        ),
        **_each(_EN + "test_seed_oss.py", _ENGINE_STATE, "test_token_overrides_wired"),
        **_each(
            _EN + "test_deepseek_v4.py",
            _ENGINE_STATE,
            "TestThinkingModeConfig::test_parser_thinking_mode_matches_tokenizer_default",
            "TestThinkingModeConfig::test_reasoning_effort_none_overrides_enable_thinking",
            "TestImplicitReasoningEnd::test_reasoning_end_token_ids_drop_multi_token_tool_opener",
        ),
        **_each(
            _EN + "test_deepseek_v4.py",
            _SERVING_PARSER_LACKS,
            "TestParallelUnwrapping::test_unwrap_parallel_streaming",
            "TestStreamingWrapperConsistency::test_streaming_wrapper_unwrap_consistency",
        ),
        **_each(
            _EN + "test_minimax_m3.py",
            _SERVING_PARSER_LACKS,
            "TestStreaming::test_truncated_invoke_keeps_completed_params",
        ),
        **_each(
            _EN + "test_gemma4_streaming_reasoning.py",
            _GEMMA_PROMPT_UNDECODABLE,
            "TestGemma4PromptOpenReasoning::test_reasoning_not_leaked_into_content",
        ),
        **_each(
            _EN + "test_deepseek_v32.py",
            _ENGINE_STATE,
            "TestInitialState::test_always_content",
            "TestInitialState::test_ignores_thinking_kwargs",
        ),
        **_each(
            _EN + "test_gemma4_streaming_reasoning.py",
            _ENGINE_STATE,
            "TestAdapterExtractReasoning::test_no_reasoning_returns_none",
            "TestAdapterExtractReasoning::test_preserves_tool_text_in_content",
            "TestAdapterExtractReasoning::test_skip_tool_parsing_restored_after_extraction",
        ),
        **_each(
            _EN + "test_gemma4_streaming_reasoning.py",
            _ENGINE_CONFIG,
            "TestGemma4ArgValueExtender::test_split_closing_delimiter",
            "TestGemma4ArgValueExtender::test_string_value_streams_before_it_closes",
            "TestGemma4ArgValueExtender::test_truncated_stream_matches_converter",
        ),
    }
)

VLLM_CHOICES = {
    **_each(
        _EN + "test_gemma4_streaming_reasoning.py",
        _NO_TOOLS_NO_CALLS,
        "TestCommaInStringValueRegression::test_batched_streaming_comma_in_value",
        "TestCommaInStringValueRegression::test_batched_streaming_multiple_commas",
        "TestGemma4PromptOpenReasoning::test_new_turn_prompt_unchanged",
        "TestGemma4ReasoningTruncationWithHoldback::test_both_tool_calls_extracted",
        "TestGemma4StreamingReasoningThenToolCall::test_tool_call_extracted",
    ),
    **_each(
        _EN + "test_gemma4_streaming_reasoning.py",
        _GEMMA_BARE_THOUGHT,
        "TestBareThoughtWithoutChannelOpener::test_bare_thought_larger_batches",
        "TestBareThoughtWithoutChannelOpener::test_bare_thought_reasoning_then_tool_call",
        "TestBareThoughtWithoutChannelOpener::test_bare_thought_token_at_end_of_stream",
    ),
    **_each(
        _EN + "test_minimax_m2.py",
        _TEMPLATE_OPENS,
        "TestNonStreaming::test_no_tool_calls",
        "TestReasoning::test_extract_reasoning_without_end_token",
        "TestReasoning::test_extract_reasoning_without_start_token",
    ),
    **_each(_EN + "test_seed_oss.py", _TEMPLATE_OPENS, "test_streaming_think_end_and_tool_call_same_delta"),
    **_each(_EN + "test_granite.py", _BLANKS_DROPPED, "TestNonStreaming::test_surrounding_text_is_content"),
    **_each(
        _EN + "test_granite.py", _GRANITE_LONE_OBJECT, "TestNonStreaming::test_marker_without_array_is_not_a_tool_call"
    ),
    "tests/tool_parsers/test_deepseekv31_tool_parser.py::test_extract_tool_calls_with_multiple_tools": (
        "asserts that the text after the tool section is dropped; ours gives it as content (issue 20 counts dropped "
        "content as a loss)"
    ),
    _KIMI + "TestStreamingEdgeCases::test_content_after_tool_section": (
        "asserts that the text after the tool section is dropped; ours gives it as content (a loss in issue 20's table)"
    ),
    _KIMI + "TestExtractToolCalls::test_invalid_json_still_extracted": (
        "vLLM's Kimi K2 parser returns a call whose arguments are malformed; its Hermes and Llama 3 parsers return "
        "none and the output as content (their tests of invalid JSON pass with ours): ours does the latter in every "
        "format"
    ),
    _LLAMA + "test_extract_tool_calls_missing_parameters_and_arguments_key": (
        'vLLM reads {"name": ...} without arguments as no call; ours as a call with {} (a tool without parameters)'
    ),
    _LLAMA + "test_extract_tool_calls_simple": (
        "vLLM's non-streaming path finds a call object after prose, its streaming path does not; ours reads both "
        "paths alike (calls open the output or follow <|python_tag|>)"
    ),
    _LLAMA + "test_extract_tool_calls_multiple_json_with_surrounding_text": (
        "vLLM's non-streaming path finds call objects after prose, its streaming path does not; ours reads both "
        "paths alike"
    ),
    **_each(
        "tests/tool_parsers/test_glm47_moe_tool_parser.py",
        _BLANKS_DROPPED,
        "TestGlm47ExtractToolCalls::test_whitespace_content_none",
    ),
    **_each(
        "tests/tool_parsers/test_glm4_moe_tool_parser.py",
        _BLANKS_DROPPED,
        "test_extract_tool_calls_with_glm45_newline_format",
    ),
    **_each(
        "tests/tool_parsers/test_qwen3coder_tool_parser.py",
        _BLANKS_DROPPED,
        "test_extract_tool_calls[chat_completion-parallel_tools]",
        "test_extract_tool_calls[responses_api-parallel_tools]",
        "test_extract_tool_calls_streaming[chat_completion-parallel_tools]",
        "test_extract_tool_calls_streaming[responses_api-parallel_tools]",
    ),
    **_each(
        "tests/parser/engine/test_minimax_m2.py",
        _CALL_IN_ERROR_DROPPED,
        "TestNonStreaming::test_mixed_tool_names_only_return_valid",
    ),
    **_each(
        "tests/tool_parsers/test_step3p5_tool_parser.py",
        _BLANKS_DROPPED,
        "test_extract_tool_calls[parallel_tools]",
        "test_extract_tool_calls_streaming[parallel_tools]",
    ),
    **_each(
        "tests/tool_parsers/test_step3p5_tool_parser.py",
        _TEXT_BETWEEN_CALLS_DROPPED,
        "test_extract_tool_calls_non_streaming_mixed_content_and_multiple_tool_calls",
    ),
    **_each(
        "tests/tool_parsers/test_ernie45_moe_tool_parser.py",
        _BLANKS_DROPPED,
        "test_extract_tool_calls[single_tool_call]",
        "test_extract_tool_calls[multiple_tool_calls]",
        "test_extract_tool_calls[tool_call_with_content_before]",
    ),
    **_each(
        "tests/parser/engine/test_seed_oss.py",
        _CALL_IN_ERROR_DROPPED,
        "test_malformed_function_end_does_not_drop_siblings",
    ),
    **_each(
        "tests/tool_parsers/test_gemma4_tool_parser.py",
        _CALL_IN_ERROR_DROPPED,
        "TestBareAndMalformedOpeners::test_bare_malformed_then_well_formed",
        "TestBareAndMalformedOpeners::test_malformed_no_brace_bounded",
        "TestBareAndMalformedOpeners::test_malformed_then_well_formed",
        "TestBareAndMalformedOpeners::test_three_mixed_calls",
        "TestExtractToolCalls::test_incomplete_tool_call",
    ),
    **_each(
        "tests/tool_parsers/test_qwen3coder_tool_parser.py",
        _CALL_IN_ERROR_DROPPED,
        "test_none_tool_calls_filtered",
    ),
    **_each(
        "tests/tool_parsers/test_deepseekv32_tool_parser.py",
        _DSML_RETYPED,
        "TestExtractToolCalls::test_multi_typed_schema",
        "TestExtractToolCalls::test_null_coerced_back_to_string_by_schema",
        "TestExtractToolCalls::test_number_param",
        "TestExtractToolCallsStreaming::test_streaming_matches_non_streaming_conversion_fallbacks",
    ),
    **_each(
        "tests/parser/engine/test_gemma4_streaming_reasoning.py",
        _GEMMA_BARE_WORDS,
        "TestGemma4SchemaCoercionBoolNumberNull::test_number_whole_normalized",
        "TestNonStreamingToolCalls::test_number_and_boolean",
        "TestStreamingToolCallEdgeCases::test_streaming_bool_split",
        "TestStreamingToolCallEdgeCases::test_streaming_number_split",
        "TestStreamingToolCallEdgeCases::test_streaming_numeric_args",
        "TestStreamingToolCallEdgeCases::test_streaming_trailing_bare_bool",
    ),
    **_each(
        "tests/tool_parsers/test_gemma4_tool_parser.py",
        _UNKNOWN_TOOL_TAKEN,
        "TestBareAndMalformedOpeners::test_bare_opener_multiple_args",
        "TestBareAndMalformedOpeners::test_bare_opener_non_streaming",
        "TestBareAndMalformedOpeners::test_colon_in_content_not_broken",
        "TestBareAndMalformedOpeners::test_documented_form_still_works",
        "TestExtractToolCalls::test_dotted_function_name",
        "TestExtractToolCalls::test_hyphenated_function_name",
        "TestExtractToolCalls::test_multiple_arguments",
        "TestExtractToolCalls::test_multiple_tool_calls",
        "TestExtractToolCalls::test_nested_arguments",
        "TestExtractToolCalls::test_no_arguments",
        "TestExtractToolCalls::test_single_tool_call",
        "TestExtractToolCalls::test_text_before_tool_call",
    ),
    **_each(
        "tests/tool_parsers/test_qwen3coder_tool_parser.py",
        _UNKNOWN_TOOL_TAKEN,
        "test_no_double_serialization_string_args",
    ),
    **_each(
        "tests/parser/engine/test_deepseek_v32.py",
        _WRAPPER_UNWRAPPED,
        "TestNonStreaming::test_wrapper_unwrapping",
    ),
    **_each(
        "tests/tool_parsers/test_deepseekv32_tool_parser.py",
        _WRAPPER_UNWRAPPED,
        "TestExtractToolCalls::test_arguments_wrapper_repaired",
        "TestExtractToolCalls::test_input_wrapper_repaired",
    ),
}

_DSV4 = "tests/tool_parsers/test_deepseekv4_tool_parser.py"
_M3 = "tests/tool_parsers/test_minimax_m3_tool_parser.py"
VLLM_CHOICES.update(
    {
        **_each(_DSV4, _TEXT_AFTER_CALLS_DROPPED, "test_function_calls_wrapper_is_not_recognized"),
        **_each(_DSV4, _WRAPPER_UNWRAPPED, "test_extract_tool_calls_arguments_wrapper"),
        **_each(
            _EN + "test_deepseek_v4.py",
            _TEXT_AFTER_CALLS_DROPPED,
            "TestMissingInvokeEnd::test_streaming_with_trailing_content",
            "TestMissingToolCallsWrapper::test_trailing_content_dropped_consistently[False]",
        ),
        **_each(
            _EN + "test_deepseek_v4.py",
            _BLANKS_DROPPED,
            "TestMissingToolCallsWrapper::test_non_streaming[False]",
            "TestMissingToolCallsWrapper::test_second_wrapped_block_after_orphan",
            "TestMissingToolCallsWrapper::test_parallel_orphan_invokes",
        ),
        **_each(
            _EN + "test_deepseek_v4.py",
            _TEMPLATE_OPENS,
            "TestThinkTagAbsorption::test_bare_think_end_not_leaked",
            "TestMissingToolCallsWrapper::test_orphan_invoke_inside_reasoning_is_not_a_tool_call",
            "TestMissingToolCallsWrapper::test_drafted_invoke_in_reasoning_does_not_hijack_real_call",
            "TestMissingToolCallsWrapper::test_streaming_orphan_invoke_inside_reasoning_is_not_a_tool_call",
            "TestThinkingModeConfig::test_thinking_mode_reasoning_without_tags",
            "TestThinkingModeConfig::test_thinking_mode_all_reasoning_no_end_tag",
        ),
        **_each(
            _EN + "test_deepseek_v4.py",
            _DSML_BARE_PARAMETER,
            "TestMissingStringAttribute::test_non_streaming_keeps_parameter",
        ),
        **_each(
            _EN + "test_deepseek_v4.py",
            _WRAPPER_UNWRAPPED,
            "TestParallelUnwrapping::test_unwrap_parallel_uses_correct_schema",
            "TestParallelUnwrapping::test_unwrap_single_tool_still_works",
        ),
        **_each(_EN + "test_deepseek_v41.py", _UNKNOWN_TOOL_READ, "test_registered_adapters_parse_complete_output"),
        **_each(
            _EN + "test_minimax_m3.py",
            _UNKNOWN_TOOL_READ,
            "TestArguments::test_unknown_tool_keeps_text_and_nests_objects",
        ),
        **_each(_M3, _LEADING_ZERO_INTEGER, "test_non_streaming_nested_tool_call", "test_streaming_nested_tool_call"),
        **_each(_EN + "test_minimax_m3.py", _LEADING_ZERO_INTEGER, "TestArguments::test_nested_elements_follow_schema"),
        **_each(_M3, _SKIP_SPECIAL_TOKENS_KEPT, "test_required_tool_choice_keeps_native_syntax"),
        **_each(
            _EN + "test_minimax_m3.py",
            _M3_MALFORMED_ELEMENTS,
            "TestArguments::test_malformed_element_keeps_preceding_params",
            "TestArguments::test_depth_limit",
        ),
        **_each(
            _EN + "test_minimax_m3.py",
            _TEXT_AFTER_CALLS_DROPPED,
            "TestToolBlock::test_text_after_tool_block_is_dropped",
        ),
        **_each(
            _EN + "test_minimax_m3.py",
            _M3_INVOKE_OUTSIDE_BLOCK,
            "TestToolBlock::test_invoke_outside_tool_block_is_content",
        ),
        **_each(
            _EN + "test_minimax_m3.py",
            _ARGUMENTS_WHOLE_AT_INVOKE_END,
            "TestStreaming::test_arguments_arrive_with_invoke_end",
            "TestStreaming::test_char_chunks_match_complete_parse",
        ),
        **_each(
            "tests/tool_parsers/test_kimi_k3_named_tool_choice.py",
            _K3_NAMED_WITHOUT_TAG,
            "test_named_choice_rejected_without_structural_tag",
            "test_named_custom_choice_rejected_without_structural_tag",
        ),
    }
)

STREAM_NEEDS = {
    **_each(_DSV4, _ORPHAN_SECTION_END_LEAKS, "test_missing_tool_calls_wrapper_is_recovered"),
    **_each(
        _EN + "test_deepseek_v4.py",
        _ORPHAN_SECTION_END_LEAKS,
        "TestMissingToolCallsWrapper::test_non_streaming[True]",
        "TestMissingToolCallsWrapper::test_trailing_content_dropped_consistently[True]",
        "TestMissingToolCallsWrapper::test_streaming_marker_split_across_deltas",
    ),
    **_each(
        _EN + "test_deepseek_v4.py",
        _IMPLICIT_REASONING_END,
        "TestImplicitReasoningEnd::test_non_streaming_extract_reasoning_implicit_end",
        "TestImplicitReasoningEnd::test_non_streaming_parse_implicit_end",
        "TestImplicitReasoningEnd::test_streaming_reasoning_implicit_end",
        "TestImplicitReasoningEnd::test_thinking_false_explicit_think_then_tool_call",
        "TestImplicitReasoningEnd::test_streaming_implicit_end_trailing_whitespace_stripped",
        "TestMalformedDsmlNoise::test_corrupted_wrapper_ends_reasoning",
    ),
    **_each(
        _EN + "test_minimax_m3.py",
        _M3_BLOCK_END_NAMED_ELEMENT,
        "TestArguments::test_block_marker_named_element_is_argument",
    ),
    **_each(
        _EN + "test_seed_oss.py",
        _TURNS,
        *(
            f"TestSeedTurnBoundaries::test_{t}"
            for t in ("boundary_with_thinking_disabled_is_end", "replayed_reasoning_in_history_not_end")
        ),
    ),
    **_each(
        _EN + "test_glm47_moe.py",
        _TURNS,
        "TestIsReasoningEnd::test_previous_turn_think_end_ignored",
        "TestIsReasoningEnd::test_thinking_disabled",
        "TestIsReasoningEnd::test_tool_call_without_think_end",
    ),
    **_each(
        _EN + "test_gemma4_streaming_reasoning.py",
        _TURNS,
        "TestGemma4IsReasoningEnd::test_is_reasoning_end[ids1-True-True]",
        "TestGemma4IsReasoningEnd::test_is_reasoning_end[ids4-True-False]",
        "TestGemma4IsReasoningEnd::test_is_reasoning_end[ids5-False-True]",
    ),
    _KIMI + "TestExtractToolCalls::test_invalid_funcall_id_skipped": (
        "a call whose header is not functions.NAME:IDX must be no call (the stream reads invalid.0 as the name)"
    ),
    _KIMI + "TestStreamingEdgeCases::test_noise_between_markers_suppressed": (
        "text in the tool section that is no call leaves the section, so the section's end marker leaks into "
        "content (vLLM also drops the text: ours keeps it as content once the marker no longer leaks)"
    ),
    **{
        f"{_EN}test_gemma4_streaming_reasoning.py::TestGemma4ArgValueExtender::test_matches_converter_at_every_chunking"
        f'[a:<|"|>x<|"|>,<|"|>quoted key<|"|>:<|"|>val<|"|>-{size}-{schema}]': _GEMMA_QUOTED_KEY
        for size in (1, 3, 7, 64)
        for schema in ("schema", "no_schema")
    },
    **_each(
        "tests/tool_parsers/test_glm47_moe_tool_parser.py",
        _NAMESPACE_TOOLS,
        "TestGlm47ExtractToolCalls::test_namespace_tool_call_round_trip_to_responses_output",
    ),
    **_each(
        "tests/parser/engine/test_minimax_m2.py",
        _UNKNOWN_TOOL_STARTS,
        "TestStreaming::test_streaming_invalid_tool_name_is_rejected",
    ),
}

# vLLM's tests of its ``hf`` parsers (the served checkpoint's response_template:
# tests/parser/test_response_template.py), run as the others are, with streaming_json_hf in place
# (vllm_own_tests_plugin.py's _install_ours_hf), by test_vllm_response_template.py; each test ours fails is listed
# here with why, as for the formats above.
TEMPLATE_FILES = {"hf": ["tests/parser/test_response_template.py"]}
_RT = "tests/parser/test_response_template.py"

_HF_CLASS = (
    "asserts vLLM's own template Parser: ParserManager composes vLLM's hf parsers into its ResponseTemplateParser "
    "(and refuses them beside another parser); ours are an ordinary tool and reasoning parser pair, composed as any "
    "other (a DelegatingParser) and combined with any"
)
_HF_STARTUP_WORDING = (
    "vLLM's startup messages ('requires `response_template` metadata', 'Invalid response_template', 'tool_calls "
    "field'): ours fails at startup too (ParserManager's TypeError), in our reading's own words; and ours refuses a "
    "template without a tool_calls field for the reasoning parser alone too ('response_template has no tool-call "
    "field': the reasoning block is read from the compiled format, which needs one), where vLLM's takes it"
)
_REQUEST_STAND_IN = (
    "adjust_request on the test's request stand-in (a SimpleNamespace with tools, tool_choice 'auto'): the "
    "DelegatingParser vLLM composes over ours reads the request's structured outputs "
    "(request.extract_structured_outputs()), which the stand-in lacks; and (the chat-template test) vLLM's hf "
    "parser warns that a request's chat template is set, ours has no such warning"
)
_FORCED_BY_TAG = (
    "vLLM's hf parser refuses the tool guarantees it cannot force without a grammar (required, named, "
    "parallel_tool_calls=False, strict tools: VLLMValidationError); over ours, vLLM's DelegatingParser forces them "
    "with our structural tag instead (and, on the test's request stand-in, fails first reading its structured "
    "outputs)"
)
_GATE_WITHOUT_DECODING = (
    "vLLM's streaming reasoning gate matches the closer's token ids without decoding (the test fails on any "
    "decode); ours reads the decoded text"
)
_WHOLE_CALLS = (
    "asserts that no call is sent before its region closes (vLLM's hf parser sends each call whole): ours streams "
    "the call's name and then its arguments as they come, which is what streaming_json_hf is for"
)
_MALFORMED_DROPPED = (
    "vLLM's hf parser drops a call it cannot parse (text after the call's JSON, a call cut off, a call opened in the "
    "prompt that closes malformed, a hyphenated name its \\w+ stops in) and every character of it; transformers' "
    "parse raises there; ours reads the call as written (a name up to the arguments' '{', \\w+ or not) and gives "
    "the text that is no call as content (issue 20 counts dropped text as a loss)"
)
_HF_REFUSED = "a template streaming_json_hf refuses (TEMPLATE_REFUSED names the feature, which the run asserts)"

HF_NOT_APPLICABLE = {
    **_each(_RT, _HF_CLASS, "test_parser_manager_selects_response_template_by_name"),
    **_each(_RT, _HF_CLASS, "test_response_template_parser_rejects_other_parsers"),
    **_each(_RT, _HF_STARTUP_WORDING, "test_parser_manager_validates_checkpoint_metadata_at_startup"),
    **_each(
        _RT,
        _REQUEST_STAND_IN,
        "test_request_chat_template_is_honored_with_warning",
        "test_adjust_request_preserves_parser_delimiters_without_forcing_stop_text",
    ),
    **_each(_RT, _FORCED_BY_TAG, "test_unconstrained_tool_guarantees_are_rejected"),
    **_each(_RT, _GATE_WITHOUT_DECODING, "test_streaming_reasoning_gate_matches_thinking_closer_without_decoding"),
    **_each(
        _RT,
        _HF_REFUSED,
        "test_response_template_takes_name_from_region_content",
        "test_response_template_applies_literal_transformed_name",
        "test_delimited_template_keeps_plain_content_and_tolerates_required_fields",
        "test_reasoning_gate_honors_disabled_and_repeated_thinking",
    ),
}
HF_VLLM_CHOICES = {
    **_each(_RT, _WHOLE_CALLS, "test_streamed_tool_call_is_emitted_when_its_region_parses"),
    **_each(
        _RT,
        _MALFORMED_DROPPED,
        "test_gemma4_response_template_drops_incomplete_call",
        "test_gemma4_checkpoint_grammar_excludes_hyphenated_name",
        "test_malformed_call_opened_across_prompt_boundary_is_dropped",
        "test_streaming_invalid_call_is_dropped",
        "test_malformed_call_does_not_block_following_call",
        "test_non_streaming_malformed_call_is_dropped",
        "test_streaming_malformed_call_is_dropped_before_emission",
        "test_prefilled_malformed_call_is_dropped",
    ),
    **_each(_RT, _TEXT_AFTER_CALLS_DROPPED, "test_gemma4_response_template_preserves_content_after_tool_call"),
    **_each(_RT, _NAMESPACE_TOOLS, "test_responses_namespace_tools_use_vllm_flattened_names"),
}
HF_STREAM_NEEDS: dict[str, str] = {}
# The templates of vLLM's tests that streaming_json_hf refuses: the test, and the field and feature the refusal names
# (the test fails with ours on that ValueError).
TEMPLATE_REFUSED = {
    f"{_RT}::test_response_template_takes_name_from_region_content": (
        "tool_calls: a structured field without 'repeats' (one value, not a list of calls)"
    ),
    f"{_RT}::test_response_template_applies_literal_transformed_name": (
        "tool_calls: a structured field without 'repeats' (one value, not a list of calls)"
    ),
    f"{_RT}::test_delimited_template_keeps_plain_content_and_tolerates_required_fields": (
        "tool_calls: 'optional': false"
    ),
    # (its first half, thinking turned off by chat_template_kwargs, passes: the second's template is refused)
    f"{_RT}::test_reasoning_gate_honors_disabled_and_repeated_thinking": (
        "thinking: a text field that repeats without 'join' (a list of its regions)"
    ),
}
# Where our drop-in ResponseParser, reading an output vLLM's hf parser read with its copy of transformers'
# ResponseParser (tests/servers/response_template_reads.py), gives another message: the test, and why.
_READ_MALFORMED = (
    "a call vLLM's copy of ResponseParser cannot parse (text after its JSON, cut off, a hyphenated name its "
    "\\w+ does not match, a prompt that opened it): it drops the region and its text; transformers' own "
    "ResponseParser raises ('json: could not parse'); ours reads the call as written and the rest as content"
)
READS_DIFFER = {
    **_each(
        _RT,
        _READ_MALFORMED,
        "test_gemma4_response_template_drops_incomplete_call",
        "test_gemma4_checkpoint_grammar_excludes_hyphenated_name",
        "test_malformed_call_opened_across_prompt_boundary_is_dropped",
        "test_streaming_invalid_call_is_dropped",
        "test_malformed_call_does_not_block_following_call",
        "test_non_streaming_malformed_call_is_dropped",
        "test_prefilled_malformed_call_is_dropped",
    ),
    **_each(
        _RT,
        "a call to a tool the request does not have: transformers and vLLM read its arguments; ours, given tools=, "
        "ends such a call with an error and its arguments empty",
        "test_streaming_unknown_call_is_forwarded",
    ),
}
# The templates vLLM's hf parser reads in its tests that we refuse: their fields and start anchor, and the feature.
READS_REFUSED = {
    "['content', 'tool_calls']'<|turn>model\\n'": (
        "tool_calls: a structured field without 'repeats' (one value, not a list of calls)"
    ),
    "['content', 'thinking', 'tool_calls']'<assistant>'": (
        "tool_calls: a structured field without 'repeats' (one value, not a list of calls)"
    ),
}

NOT_APPLICABLE.update(HF_NOT_APPLICABLE)
VLLM_CHOICES.update(HF_VLLM_CHOICES)
STREAM_NEEDS.update(HF_STREAM_NEEDS)
LISTED = {**NOT_APPLICABLE, **VLLM_CHOICES, **STREAM_NEEDS}


def listed_in(test: str, listing: dict[str, str]) -> Optional[str]:
    """Where ``test`` is listed in ``listing``: its id, or its function's; or None."""
    for key in (test, test.split("[")[0]):
        if key in listing:
            return key
    return None


def listed_as(test: str) -> Optional[str]:
    """Where ``test`` is listed: its id, or its function's (which stands for all its parametrizations); or None."""
    for key in (test, test.split("[")[0]):
        if key in LISTED:
            return key
    return None


def check_ours_in_place(
    theirs: dict[str, dict[str, Any]], ours: dict[str, dict[str, Any]], files: list[str], format_name: str
) -> None:
    """Every test of ``files`` that vLLM's parser passes passes with ours in place, but those listed (each of which
    still fails with ours); each listing names a test of the files; vLLM's parser passes its own tests here."""
    mine = {test: entry for test, entry in ours.items() if test.split("::")[0] in files and entry["ours"]}
    assert len(mine) >= 4, f"our {format_name} parser ran in only {len(mine)} of vLLM's tests: was it put in place?"
    for test in mine:
        assert test in theirs, f"{test} ran with ours only"
    unexpected = {
        test: entry.get("message", "")[-600:]
        for test, entry in mine.items()
        if entry["outcome"] in ("failed", "error") and listed_as(test) is None and theirs[test]["outcome"] == "passed"
    }
    assert not unexpected, "\n\n".join(f"{test}:\n{message}" for test, message in unexpected.items())
    stale = [test for test in mine if listed_as(test) is not None and mine[test]["outcome"] not in ("failed", "error")]
    assert not stale, f"listed as failing with ours, but they pass now: {stale}"
    # Each listing names tests that exist (a misspelt one would list nothing, and hide nothing either).
    here = {listed_as(test) for test in ours if test.split("::")[0] in files}
    unknown = [key for key in LISTED if key.split("::")[0] in files and key not in here]
    assert not unknown, f"listed, but vLLM's files have no such test: {unknown}"
    # vLLM's parsers pass their own tests here (the tokenizer made here serves them): the run is a fair one.
    assert all(theirs[test]["outcome"] in ("passed", "skipped", "xfailed") for test in mine)


def run(parsers: str, files: list[str], report: Path, folder: str = "tests/tool_parsers") -> dict[str, dict[str, Any]]:
    """Run vLLM's tests ``files`` (of ``folder``, whose conftest they use) with ``parsers`` (``"theirs"`` or
    ``"ours"``) in a child pytest; each test's outcome (``passed``, ``failed``, ``skipped``, ``xfailed``,
    ``xpassed``, ``error``) and whether it ran ours."""
    root = unpacked_sdist("vllm", VLLM_VERSION)
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE),
        "STREAMING_JSON_VLLM_PARSERS": parsers,
        "STREAMING_JSON_VLLM_REPORT": str(report),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "vllm_own_tests_plugin",
        "-p",
        "no:cacheprovider",
        "--confcutdir",
        folder,  # vLLM's root conftest loads its models' stack: its parsers' tests need none of it
        "-o",
        "asyncio_mode=auto",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
        *files,
    ]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=1200)
    if not report.exists():
        raise RuntimeError(f"vLLM's tests did not run ({done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    outcomes: dict[str, dict[str, Any]] = json.loads(report.read_text("utf-8"))
    return outcomes


def counts(outcomes: dict[str, dict[str, Any]], files: list[str], ours_only: bool = False) -> Counter[str]:
    return Counter(
        entry["outcome"]
        for test, entry in outcomes.items()
        if test.split("::")[0] in files and (entry["ours"] or not ours_only)
    )


def table(
    theirs: dict[str, dict[str, Any]], ours: dict[str, dict[str, Any]], groups: Optional[dict[str, list[str]]] = None
) -> str:
    """Per format: the tests vLLM's parser passes, and those ours passes of the ones that ran ours (markdown)."""
    rows = [
        "| format | vLLM's file | vLLM's parser | ours | ours fails: listed (not applicable, vLLM's choice, stream) |",
        "| --- | --- | --- | --- | --- |",
    ]
    pairs = [(name, files) for group in GROUPS.values() for name, files in group.items()]
    for format_name, files in list(groups.items()) if groups is not None else pairs:
        mine = {test for test, entry in ours.items() if test.split("::")[0] in files and entry["ours"]}
        their_counts = Counter(theirs[test]["outcome"] for test in mine if test in theirs)
        our_counts = Counter(ours[test]["outcome"] for test in mine)
        failing = [test for test in mine if ours[test]["outcome"] in ("failed", "error")]
        kinds = [
            sum(listed_as(test) in which for test in failing) for which in (NOT_APPLICABLE, VLLM_CHOICES, STREAM_NEEDS)
        ]

        def cell(counter: Counter[str], total: int = len(mine)) -> str:
            extra = ", ".join(f"{counter[k]} {k}" for k in ("xfailed", "xpassed", "skipped") if counter[k])
            return f"{counter['passed']} of {total}" + (f" ({extra})" if extra else "")

        rows.append(
            f"| {format_name} | {Path(files[0]).name} | {cell(their_counts)} | {cell(our_counts)} | "
            f"{len(failing)}: {kinds[0]}, {kinds[1]}, {kinds[2]} |"
        )
    return "\n".join(rows)
