"""The file vLLM's ``--tool-parser-plugin`` (and ``--reasoning-parser-plugin``) loads: it imports
``streaming_json.model_output.vllm``, whose import registers the parsers. vLLM imports a plugin file under the name
of its file, so this one is not named ``vllm.py`` (that name would take vLLM's place in ``sys.modules``)."""

import streaming_json.model_output.vllm  # noqa: F401
