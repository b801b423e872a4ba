"""Datasets: the SMS Spam Collection shipped with the package, and readers for the public
datasets of the project's shared data folder (used by tests and benchmarks)."""

from .sms import load_sms_spam

__all__ = ["load_sms_spam"]
