"""``python -m syncpoint.server QMGR``: run a queue manager's server in the foreground (strmqm runs this)."""

import sys

from ._lifecycle import main

sys.exit(main())
