"""One module per peer engine, shared by every workload of bench/: hopdb, sqlite, postgres, kuzu,
cozo, neo4j, falkordb, networkx, arcadedb, leveldb; sql.py and cypher.py hold the query text that
several engines share; base.py the interfaces and helpers (its docstring lists what each module
holds). Importing a module imports no engine package: each is imported where it is used."""
