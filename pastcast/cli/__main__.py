"""``python -m pastcast.cli``, as the ``pastcast`` console script."""

from pastcast.cli import main

if __name__ == "__main__":  # not when a tool imports every module of the package
    main()
