"""Every pass by name (the universe, plugins registered from Python) and
running `-p` pipelines of them."""
