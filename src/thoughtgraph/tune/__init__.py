"""`thoughtgraph tune`: search graph settings for the best error-vs-cost trade-off (Optuna)."""
