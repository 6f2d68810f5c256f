"""``python -m flip7.client.loadtest``: the load test on its own."""

from flip7.client.loadtest.command import main

if __name__ == "__main__":
    raise SystemExit(main())
