"""``python -m flip7``: the same as the ``flip7`` command."""

from flip7.cli import main

raise SystemExit(main())
