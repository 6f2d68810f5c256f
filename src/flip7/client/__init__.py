"""Programs that drive a running ``flip7 serve`` from outside, over HTTP and WebSockets, as a
browser would: the load test (``flip7 loadtest``) and the attack benchmark (``flip7 attack``).

They start the server as a separate process and import nothing of :mod:`flip7.server`.
Need the server extra (``httpx``, ``websockets``).
"""
