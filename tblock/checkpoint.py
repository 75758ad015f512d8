"""The checkpoint loader's old home: everything now lives in :mod:`tblock.checkpoints` (re-exported here).

>>> from tblock.checkpoint import load
>>> load("tiny").family
'gpt2'
"""

from tblock.checkpoints import *  # noqa: F403
from tblock.checkpoints import __all__  # noqa: F401
