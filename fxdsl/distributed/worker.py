"""What torchrun starts on each rank: `python -m fxdsl.distributed.worker FOLDER`
(see `fxdsl.distributed.launch.worker`)."""

import sys
from pathlib import Path

from fxdsl.distributed.launch import worker

if __name__ == "__main__":
    worker(Path(sys.argv[1]))
