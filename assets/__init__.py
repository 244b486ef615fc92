"""Dagster assets, one module per stage. Thin: each calls one library stage."""
