"""``python -m flip7.client.clusterbench``: the cluster bench on its own."""

from flip7.client.clusterbench.command import main

if __name__ == "__main__":
    raise SystemExit(main())
