"""The simulated model: an offline stand-in for a language model that plays the built-in tasks.

`model.py` is the model (`sim`, `sim:profile=P,latency=S,error=E,seed=N`, a job kind's own
scale `part_error=E`); `readers.py` and one module per task read a prompt as a model would;
`laws.py` and `profiles.py` say how it slips (profiles as data: `profiles/*.json`), `replay.py`
checks a fitted profile against its data; `propose.py` answers `tune --propose`. Why a package
above both `models/` and `tasks/`: it is a model (it answers `complete` with `Completion`s) that
reads the built-in tasks' prompts with the tasks' own code, so neither of those layers imports
the other.
"""
