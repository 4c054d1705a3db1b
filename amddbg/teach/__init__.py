"""Views that teach SIMT divergence: per-line SIMD efficiency from emulated runs, timelines, lane grids."""
