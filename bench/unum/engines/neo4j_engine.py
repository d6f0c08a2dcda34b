"""Neo4j: not run by this workload (see README.md: a JVM server per dataset, loaded through
neo4j-admin, would take most of the quick profile's budget on this 2-core machine)."""

from .base import Engine, Unavailable


class Neo4j(Engine):
    def version(self):
        raise Unavailable("not implemented for this workload: starting the Neo4j server (bench/import/neo4j) and loading each graph "
                          "would take most of the profile's time budget on this 2-core machine; see bench/deep and bench/retrieval for Neo4j")
