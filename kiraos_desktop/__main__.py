"""Entry point for `python -m kiraos_desktop`."""
import sys

from kiraos_desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
