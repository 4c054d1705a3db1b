"""The replay budget's default, apart from the replay machinery so that building `amddbg explain`'s parser (its
--help names the default) does not import the emulator and the replay (0.2 s of CPU in every `amddbg --help`)."""

# Wave-instructions each replay of `amddbg explain` may run (the main replay, each seeded schedule, each what-if):
# large enough for every shipped and scenario core (bench/explain.py prints what each needs); `--budget N`.
DEFAULT_BUDGET = 1_000_000
