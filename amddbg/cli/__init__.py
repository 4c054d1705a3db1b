"""Command-line entry points: thin layers over the Python API.

Each subcommand is a module here with `add_parser(subparsers)` and `run(args) -> int`; `main.py` lists
them and imports a module only when its subcommand runs, so start-up stays fast.
"""
