"""Microbenchmarks of the hopdb Python package, one script each."""
