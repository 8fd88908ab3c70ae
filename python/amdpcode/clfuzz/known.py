"""Explained failures: each entry names a class, says why (docs/compiler-bugs.md has the
reduced reproducers), and matches a failing configuration by what it shows.

An entry's `match(case, result, evidence)` must be specific: the campaign's promise is that
every failure it counts as explained is one of these, and nothing else."""

KNOWN = []
