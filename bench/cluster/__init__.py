"""The cluster's benches (issue 24): the R-MAT generator, Q1-Q7 through query nodes, a private PostgreSQL."""
