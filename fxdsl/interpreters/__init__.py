"""The numpy reference interpreter: the oracle every pass is tested against."""
