"""Bulk runs: one template rendered for many records, followed and downloaded as one."""
