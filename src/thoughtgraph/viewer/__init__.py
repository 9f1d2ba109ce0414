"""Looking at runs: the trace viewer page (`html`) and the Jupyter displays (`jupyter`)."""
