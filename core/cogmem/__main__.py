"""``python -m cogmem``: the ``cogmem`` command."""

from cogmem.cli import main

raise SystemExit(main())
