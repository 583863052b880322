package main

import "github.com/verdict-ml/verdict/report"

// csvNum is a number in full for a CSV cell, empty for NaN and ±Inf.
func csvNum(x float64) string { return report.CSVNum(x) }
