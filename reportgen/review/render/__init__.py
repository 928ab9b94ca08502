"""The review's outputs: the Review workbook (live formulas) and the PDF "Quarter in review"."""
