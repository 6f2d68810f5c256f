"""``python -m flip7.client.attack``: the attack benchmark on its own."""

from flip7.client.attack.command import main

if __name__ == "__main__":
    raise SystemExit(main())
