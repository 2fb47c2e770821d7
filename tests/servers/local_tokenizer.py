"""A tokenizer made here, for vLLM's own tests, whose fixtures load the models' tokenizers from a model hub that this
machine cannot reach.

What the parsers and the tests need of a tokenizer is that every marker of every format is one special token (the
parsers look their ids up in ``get_vocab()``, and a server keeps special tokens whole), that any text encodes and
decodes back to itself, and that text splits into tokens of a few characters, as a model's output arrives. A
byte-level BPE (``tokenizers``, as GPT-2's and Qwen's are) does all three: it is trained on the text it is given (the
tests' own sources, so that their words, and the non-ASCII characters in them, are whole tokens, as in a real
vocabulary), and wrapped in ``transformers.PreTrainedTokenizerFast``, the class the hub's tokenizers load as.

This file imports nothing of the project's: vLLM's test run loads it by path, where ``tests`` is vLLM's package.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# Every format's markers, one special token each: the JSON formats', the reasoning blocks', and the markers of the
# formats vLLM reads with its engine (qwen3_coder, glm47, minimax_m2, deepseek_v32, seed_oss, gemma4, harmony), and
# Llama 4's.
DEEPSEEK = [
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
]
KIMI = [
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
]
# The families vLLM 0.33 added parsers for: Step-3, Hunyuan Hy3/Hy4, ERNIE 4.5, LongCat, OLMo 3, Cohere Command.
NEW_FAMILIES = [
    "<｜tool_calls_begin｜>",
    "<｜tool_calls_end｜>",
    "<｜tool_call_begin｜>",
    "<｜tool_call_end｜>",
    "<｜tool_sep｜>",
    "<tool_calls>",
    "</tool_calls>",
    "<tool_sep>",
    "<response>",
    "</response>",
    "<longcat_tool_call>",
    "</longcat_tool_call>",
    "<function_calls>",
    "</function_calls>",
    "<|START_ACTION|>",
    "<|END_ACTION|>",
    "<|START_THINKING|>",
    "<|END_THINKING|>",
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
]
MARKERS = [
    "<tool_call>",
    "</tool_call>",
    "<|python_tag|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|begin_of_text|>",
    "<|tool_call|>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    *DEEPSEEK,
    "<｜end▁of▁sentence｜>",
    "<｜begin▁of▁sentence｜>",
    *KIMI,
    "<think>",
    "</think>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<seed:think>",
    "</seed:think>",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<|tool_call>",
    "<tool_call|>",
    '<|"|>',
    "<|channel>",
    "<channel|>",
    "<|python_start|>",
    "<|python_end|>",
    "<seed:bos>",
    "<seed:eos>",
    "<|user|>",
    "<|observation|>",
    "<|channel|>",
    "<|message|>",
    "<|start|>",
    "<|end|>",
    "<|call|>",
    "<|return|>",
    "<|constrain|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|endoftext|>",
    *NEW_FAMILIES,
]


def make_tokenizer(texts: Iterable[str], markers: Iterable[str] = MARKERS, vocab_size: int = 8000) -> Any:
    """A ``PreTrainedTokenizerFast``: byte-level BPE trained on ``texts``, each of ``markers`` a special token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    special = list(dict.fromkeys(markers))
    model = Tokenizer(models.BPE())
    model.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    model.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    model.train_from_iterator(texts, trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=model, eos_token="<|endoftext|>")
    tokenizer.add_special_tokens({"additional_special_tokens": special})  # type: ignore[dict-item]
    return tokenizer
