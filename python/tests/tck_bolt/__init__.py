"""The openCypher TCK (1.0.0-M23) through the official Python driver over Bolt against
``hopdb serve``: the harness of python/tests/test_tck_bolt.py.

It runs the scenarios as the embedded runner (crates/hopdb-cypher/tests/tck.rs and tests/tck/)
does, under the same ids, so its results can be held against tests/tck-pass-list.txt:

* gherkin.py: the feature files (a port of tests/tck/gherkin.rs);
* values.py: the TCK's value notation (tests/tck/values.rs);
* wire.py: temporal values as Bolt structures next to the driver's ``neo4j.time`` values;
* compare.py: matching the driver's values to expected ones (tests/tck/compare.rs);
* runner.py: one scenario's steps over a driver session (tests/tck/runner.rs), and what the
  wire cannot carry (the error detail and phase; in-process procedures);
* server.py, run.py: the server, the run, restarts after a crash or a hang;
* report.py: the report, against the pass list.
"""
