"""Evaluation of a sealed run's selected weights: metrics and per-sample predictions."""
