"""Many ``flip7 serve`` processes: who owns which table, the Redis bus and its typed
messages, links that carry a socket to the process running its table.
"""
