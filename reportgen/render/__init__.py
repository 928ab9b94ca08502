"""Renderers: the budget workbook (openpyxl) and the PDF report (Jinja2 + WeasyPrint)."""
