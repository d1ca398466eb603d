"""The terminal console: ``statebot console``."""
