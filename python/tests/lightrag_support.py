"""Helpers for the LightRAG tests (``test_lightrag.py``) and the asyncio measurement
(``bench/pyapi/lightrag_storage.py``): storage construction for both backends, and a deterministic fake
LLM, embedding and tokenizer so a whole LightRAG insert + query runs offline.

Importing this module does not import LightRAG; the functions that need it import it."""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import re
from typing import Any, Optional

NAMESPACE = "chunk_entity_relation"  # LightRAG's NameSpace.GRAPH_STORE_CHUNK_ENTITY_RELATION


def have_lightrag() -> bool:
    """Whether lightrag-hku is importable."""
    try:
        importlib.import_module("lightrag.base")
    except ImportError:
        return False
    return True


def storage_class(backend: str) -> type:
    """The storage class named `backend` ("NetworkXStorage" or "HopDBGraphStorage"), through
    LightRAG's own registry (after registering HopDB's)."""
    from lightrag.kg import verify_storage_implementation
    from lightrag.kg.factory import get_storage_class
    from lightrag.kg.shared_storage import initialize_share_data

    import hopdb.lightrag

    hopdb.lightrag.register()
    initialize_share_data()  # single-process mode; NetworkXStorage's locks need it
    verify_storage_implementation("GRAPH_STORAGE", backend)
    return get_storage_class(backend)


def make_storage(backend: str, working_dir: str, workspace: str = "test_workspace", **config: Any) -> Any:
    """A graph storage as LightRAG builds one (not yet initialized)."""
    cls = storage_class(backend)
    global_config = {"working_dir": str(working_dir), **config}
    return cls(namespace=NAMESPACE, workspace=workspace, global_config=global_config, embedding_func=None)


# ---- a deterministic LightRAG without a model ----------------------------------------------

#: The entities the fake LLM recognises in text, with their types.
ENTITIES = {
    "Alice Martin": "person",
    "Bob Stone": "person",
    "Carol Diaz": "person",
    "Acme Corp": "organization",
    "Orbital Labs": "organization",
    "Paris": "location",
    "Lyon": "location",
    "Quantum Sensor": "artifact",
}

CORPUS = [
    "Alice Martin founded Acme Corp in Paris. Bob Stone joined Acme Corp as its first engineer. "
    "Acme Corp builds the Quantum Sensor, which Bob Stone designed.",
    "Carol Diaz leads Orbital Labs in Lyon. Orbital Labs bought the Quantum Sensor from Acme Corp. "
    "Carol Diaz met Alice Martin in Paris to sign the contract.",
]

TUPLE = "<|#|>"  # lightrag.prompt.PROMPTS["DEFAULT_TUPLE_DELIMITER"]
COMPLETE = "<|COMPLETE|>"  # PROMPTS["DEFAULT_COMPLETION_DELIMITER"]


def _found(text: str) -> list[str]:
    """Known entity names in `text`, in order of first appearance."""
    hits = sorted((text.find(name), name) for name in ENTITIES if name in text)
    return [name for _, name in hits]


def extraction_answer(text: str) -> str:
    """What a model would answer to LightRAG's (text-mode) extraction prompt for `text`: every
    known entity, and a relation between consecutive entities of each sentence."""
    lines = []
    for name in _found(text):
        lines.append(f"entity{TUPLE}{name}{TUPLE}{ENTITIES[name]}{TUPLE}{name} is a {ENTITIES[name]} in the story.")
    seen = set()
    for sentence in re.split(r"(?<=\.)\s+", text):
        names = _found(sentence)
        for a, b in zip(names, names[1:]):
            if a != b and frozenset((a, b)) not in seen:
                seen.add(frozenset((a, b)))
                desc = f"{a} and {b} appear together: {sentence}"
                lines.append(f"relation{TUPLE}{a}{TUPLE}{b}{TUPLE}related{TUPLE}{desc}")
    lines.append(COMPLETE)
    return "\n".join(lines)


async def fake_llm(
    prompt: str, system_prompt: Optional[str] = None, history_messages: Any = None, **kwargs: Any
) -> str:
    """A deterministic stand-in for LightRAG's LLM: extraction, keyword extraction, answers."""
    if "---Input Text---" in prompt:  # entity extraction: the chunk is between ``` fences
        body = prompt.split("---Input Text---", 1)[1]
        m = re.search(r"```\n(.*?)\n```", body, re.S)
        return extraction_answer(m.group(1) if m else body)
    if "high_level_keywords" in prompt:  # query keyword extraction
        query = prompt.rsplit("User Query:", 1)[-1].split("---Output---", 1)[0]
        return json.dumps({"high_level_keywords": ["collaboration"], "low_level_keywords": _found(query)})
    return "A fake answer from the fake model."


DIM = 64


def _embed_one(text: str) -> list[float]:
    v = [0.0] * DIM
    for word in re.findall(r"\w+", text.lower()):
        h = hashlib.sha256(word.encode()).digest()
        for i in range(DIM):
            v[i] += (h[i % len(h)] / 127.5) - 1.0
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


async def fake_embed(texts: list[str], **kwargs: Any) -> Any:
    """Bag-of-words embeddings from word hashes: deterministic, shared words make similar vectors."""
    import numpy as np

    return np.array([_embed_one(t) for t in texts], dtype=np.float32)


class CharTokenizer:
    """One token per character (thread-safe, invertible: LightRAG chunks by tokens)."""

    def encode(self, content: str) -> list[int]:
        return [ord(c) for c in content]

    def decode(self, tokens: list[int]) -> str:
        return "".join(chr(t) for t in tokens)


def fake_rag(working_dir: str, graph_storage: str, **kwargs: Any) -> Any:
    """A LightRAG instance with the fake model, embedding and tokenizer."""
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc, Tokenizer

    import hopdb.lightrag

    hopdb.lightrag.register()
    return LightRAG(
        working_dir=str(working_dir),
        graph_storage=graph_storage,
        llm_model_func=fake_llm,
        embedding_func=EmbeddingFunc(embedding_dim=DIM, max_token_size=8192, func=fake_embed, model_name="fake-bow"),
        tokenizer=Tokenizer("char", CharTokenizer()),
        entity_extract_max_gleaning=0,
        **kwargs,
    )
