"""Costing the way finance and procurement count it: the price book (prices.py)."""
