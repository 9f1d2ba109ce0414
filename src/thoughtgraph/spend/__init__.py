"""Spend: what a run may pay (caps), what it has paid (usage, requests), and at what price."""
