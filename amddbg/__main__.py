from amddbg.cli.main import entry

entry()
