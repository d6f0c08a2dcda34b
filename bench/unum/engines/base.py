"""The interface every engine implements. Vertex ids are integers; the graph is directed, one
edge per (src, dst) with a float weight.

    version()                  -> str; raises Unavailable(reason) if the engine cannot run here
    open(work)                 -> set-up, not timed (create the database, start a server)
    server_pid()               -> the server's pid when the engine is a separate process tree
    load(csv_path)             -> the timed import: the normalised `src,dst,weight` CSV into the
                                  store, indexes included
    settle()                   -> not timed: checkpoint / flush so that disk_bytes() is the steady size
    disk_bytes()               -> bytes on disk, None for an in-memory engine
    find_edge(u, v)            -> truthy if u->v or v->u exists
    find_directed(u, v)        -> truthy if u->v exists
    edges_of(v)                -> the edges with v at either end (rows with src, dst, weight)
    in_edges(v)                -> the edges ending at v
    neighbors(v)               -> distinct vertices adjacent to v (either direction)
    count_out(v), count_in(v)  -> (count, weight sum)
    upsert(u, v, w), upsert_batch([(u, v, w)]), remove(u, v), remove_batch([(u, v)])
                                  (a batch is one transaction / one call)
    edge_count()               -> int
    close()
The answers are compared in the canonical form of workload.canon (not timed).
"""


class Unavailable(Exception):
    """The engine cannot run here; the message is the reason reported."""


class Engine:
    durability = ""
    notes = ""

    def open(self, work):
        pass

    def server_pid(self):
        return None

    def settle(self):
        pass

    def close(self):
        pass
