"""`reportgen review`: the quarterly capacity retrospective.

The plan of record (a workbook or results CSV written by `reportgen build`) is read back and
checked (:mod:`.readback`); actuals are read from the actuals template, Prometheus range-query
exports of vLLM's metrics and AWS Cost and Usage Report CSVs (:mod:`.actuals`); the cost variance
is split into volume, mix, tokens per request, efficiency, idle capacity and price
(:mod:`.variance`), latency is compared with the targets (:mod:`.latency`), and next quarter is
re-forecast with the engine (:mod:`.reforecast`, :mod:`.autoscale`). The workbook and the PDF
"Quarter in review" are rendered by :mod:`.render`.
"""
