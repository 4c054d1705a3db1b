"""Explaining hangs: why a core's waves can never move (amddbg explain)."""
