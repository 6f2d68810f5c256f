"""Programs that drive a running ``flip7 serve`` from outside, over HTTP and WebSockets, as a
browser would: the load test (``flip7 loadtest``), the attack benchmark (``flip7 attack``)
and the scale-out bench (``flip7 cluster-bench``).

They share one table client (:mod:`.table_client`), one launcher of throwaway services on
loopback (:mod:`.services`: ``flip7 serve`` as a separate process, PostgreSQL, Redis,
HAProxy; the tests start theirs with it too), what they measure (:mod:`.measure`) and their
options (:mod:`.options`). They import nothing of :mod:`flip7.server`. The tools need the
server extra (``httpx``, ``websockets``); :mod:`.services` needs only the standard library.
"""
