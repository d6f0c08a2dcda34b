"""Soak test (issue 23): the LightRAG call mix, the Q1-Q7 mix and a 1,000/s durable writer in one
process under a memory cgroup cap, sampled every 10 s."""
