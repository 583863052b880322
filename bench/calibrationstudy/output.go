package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/report"
)

// figureRho is the paired correlation the per-user figures show; the
// tables give every correlation.
const figureRho = 0.5

// kind is what a figure or table measures.
type kind int

const (
	typeI kind = iota
	power
	coverageKind
)

// userSeries are the methods the per-user figures draw for a shape.
func userSeries(s userShape, k kind) []int {
	if k == coverageKind {
		m := []int{uBootstrap, uBCa, uT}
		if s.clustered {
			m = append(m, uBootstrapRows)
		}
		return m
	}
	m := []int{uDefault, uRandomization, uBootstrap, uT, uWilcoxon, uWilcoxonP}
	if s.binary {
		m = append(m, uMcNemar, uMcNemarP)
	}
	if s.clustered {
		m = append(m, uTRows, uRandomizationRows)
	}
	return m
}

// userTableMethods are the methods the per-user tables list for a shape.
func userTableMethods(s userShape, k kind) []int {
	if k == coverageKind {
		return userSeries(s, k)
	}
	m := []int{uDefault, uRandomization, uBootstrap, uBCa, uT, uWilcoxon, uWilcoxonP}
	if s.binary {
		m = append(m, uMcNemar, uMcNemarP)
	}
	if s.clustered {
		m = append(m, uTRows, uRandomizationRows, uBootstrapRows)
	}
	return m
}

// The figures' legends use short names.
var userShort = [uMethods]string{
	uDefault:           "bootstrap + randomization (default)",
	uRandomization:     "randomization p alone",
	uBootstrap:         "bootstrap interval alone",
	uBCa:               "BCa interval",
	uT:                 "paired t",
	uWilcoxon:          "Wilcoxon + bootstrap interval",
	uWilcoxonP:         "Wilcoxon p alone",
	uMcNemar:           "McNemar + bootstrap interval",
	uMcNemarP:          "McNemar p alone",
	uTRows:             "paired t on rows",
	uRandomizationRows: "randomization on rows",
	uBootstrapRows:     "bootstrap interval on rows",
}

var foldShort = [fMethods]string{
	fCorrected10:  "corrected t, 10-fold (default)",
	fT10:          "paired t, 10-fold",
	fDefault10:    "bootstrap + randomization, 10-fold",
	fWilcoxon10:   "Wilcoxon, 10-fold",
	fBayes10:      "Bayesian correlated t, 10-fold",
	fCorrected100: "corrected t, 10×10 (default)",
	fT100:         "paired t, 10×10",
	fDefault100:   "bootstrap + randomization, 10×10",
	fFiveByTwo:    "5×2cv t (default)",
	fFiveByTwoP:   "5×2cv t p alone",
	fCorrected5x2: "corrected t, 5×2",
	fT5x2:         "paired t, 5×2",
}

var classShort = [cMethods]string{cDeLong: "DeLong", cBootstrap: "stratified bootstrap"}

// foldSeries are the methods the cross-validation figures draw.
func foldSeries(k kind) []int {
	if k == coverageKind {
		return []int{fCorrected10, fT10, fDefault10, fCorrected100, fT100, fFiveByTwo, fCorrected5x2}
	}
	return []int{fCorrected10, fT10, fDefault10, fCorrected100, fT100, fFiveByTwo, fCorrected5x2, fT5x2}
}

// figureName is the file a figure is written to.
func figureName(k kind, part string) string {
	switch k {
	case typeI:
		return "typeI-" + part + ".svg"
	case power:
		return "power-" + part + ".svg"
	}
	return "coverage-" + part + ".svg"
}

// point turns a tally into a plotted rate.
func point(n int, t tally, k kind) CalibrationPoint {
	r := t.rejection()
	if k == coverageKind {
		r = t.coverage()
	}
	return CalibrationPoint{N: float64(n), Rate: r.est, Low: r.low, High: r.high}
}

// chart is a figure's frame: titles, target, band and cut for its kind.
func chart(k kind, title, xlabel string, trials map[int]int) CalibrationChart {
	ch := CalibrationChart{Title: title, XLabel: xlabel}
	target := alpha
	switch k {
	case typeI:
		ch.YLabel = "rejection rate of a true null"
		ch.BandLabel = "calibrated: 99 % range at α = 5 %"
	case power:
		ch.YLabel = "power (rejection rate)"
	case coverageKind:
		target = confidence
		ch.YLabel = "coverage of the 95 % interval"
		ch.BandLabel = "calibrated: 99 % range at 95 %"
	}
	ch.Target = target
	if k != power {
		for _, n := range sortedKeys(trials) {
			ch.Band = append(ch.Band, bandAt(float64(n), trials[n], target))
		}
	}
	return ch
}

// bandAt is the 99 % binomial band, at x, of a method whose true rate is
// target, over trials replications.
func bandAt(x float64, trials int, target float64) CalibrationBand {
	lo, hi := binomialBand(trials, target, 0.99)
	return CalibrationBand{N: x, Low: float64(lo) / float64(trials), High: float64(hi) / float64(trials)}
}

// cut narrows a type I chart to [0, 20 %] and a coverage chart to
// [70 %, 100 %] when some rate lies outside, so that the band stays
// readable; the rates outside are written at the edge.
func cut(ch *CalibrationChart, k kind) {
	for _, s := range ch.Series {
		for _, p := range s.Points {
			switch {
			case k == typeI && p.Rate > 0.2:
				ch.YMin, ch.YMax = 0, 0.2
			case k == coverageKind && p.Rate < 0.7:
				ch.YMin, ch.YMax = 0.7, 1
			}
		}
	}
}

func sortedKeys(m map[int]int) []int {
	var keys []int
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// figures writes every figure to dir, as SVG or PNG (format svg or png).
func (s *study) figures(dir, format string) error {
	var figs []struct {
		name string
		ch   CalibrationChart
	}
	add := func(name string, ch CalibrationChart) {
		figs = append(figs, struct {
			name string
			ch   CalibrationChart
		}{name, ch})
	}
	var shapes []userShape
	if len(s.users) > 0 {
		shapes = userShapes()
	}
	for _, shape := range shapes {
		for _, f := range shape.families() {
			k := typeI
			if f == lift {
				k = power
			}
			name := shape.name + "-" + f.String()
			if k == power {
				name = shape.name
			}
			add(figureName(k, name), s.userChart(shape, f, k))
		}
		add(figureName(coverageKind, shape.name), s.userChart(shape, lift, coverageKind))
	}
	for _, k := range []kind{typeI, power, coverageKind} {
		if len(s.folds) > 0 {
			add(figureName(k, "folds"), s.foldChart(k))
		}
		if len(s.classes) > 0 {
			add(figureName(k, "auc"), s.classChart(k))
		}
	}
	s.rankFigures(add)
	s.metricFigures(add)
	s.poissonFigures(add)
	s.agreeFigures(add)
	s.marginFigures(add)
	s.seedFigures(add)
	for _, f := range figs {
		fig, err := Calibration(f.ch)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if err := fig.Save(filepath.Join(dir, strings.TrimSuffix(f.name, ".svg")+"."+format)); err != nil {
			return err
		}
	}
	return nil
}

func (s *study) userChart(shape userShape, f family, k kind) CalibrationChart {
	trials := map[int]int{}
	for _, n := range s.plan.userSizes {
		r, _ := s.userResult(shape.name, f, figureRho, n)
		t := r.tallies[uDefault]
		trials[n] = t.trials
	}
	title := map[kind]string{typeI: "Type I error", power: "Power against a 10 % lift", coverageKind: "Coverage of a 10 % lift"}[k]
	switch f {
	case meanNull:
		title += ", equal means, different shapes"
	case sameNull:
		title += ", both sides alike"
	}
	ch := chart(k, title, "users (n): "+shape.title+", ρ = "+rhoText(figureRho), trials)
	for _, m := range userSeries(shape, k) {
		ser := CalibrationSeries{Name: userShort[m]}
		for _, n := range s.plan.userSizes {
			r, _ := s.userResult(shape.name, f, figureRho, n)
			t := r.tallies[m]
			if (k == coverageKind && t.intervals == 0) || t.trials == 0 {
				continue
			}
			ser.Points = append(ser.Points, point(n, t, k))
		}
		if len(ser.Points) > 0 {
			ch.Series = append(ch.Series, ser)
		}
	}
	cut(&ch, k)
	return ch
}

func (s *study) foldChart(k kind) CalibrationChart {
	f := sameNull
	if k != typeI {
		f = lift
	}
	trials := map[int]int{}
	for _, n := range s.plan.foldSizes {
		trials[n] = s.foldResult(f, n).tallies[fCorrected10].trials
	}
	what := map[kind]string{typeI: "Type I error", power: "Power against a 13 % lower error", coverageKind: "Coverage of the expected difference"}[k]
	ch := chart(k, what+" of cross-validated learners", "rows in the data set (N): two least-squares learners", trials)
	for _, m := range foldSeries(k) {
		ser := CalibrationSeries{Name: foldShort[m]}
		for _, n := range s.plan.foldSizes {
			ser.Points = append(ser.Points, point(n, s.foldResult(f, n).tallies[m], k))
		}
		ch.Series = append(ch.Series, ser)
	}
	cut(&ch, k)
	return ch
}

func (s *study) classChart(k kind) CalibrationChart {
	f := sameNull
	if k != typeI {
		f = lift
	}
	trials := map[int]int{}
	for _, n := range s.plan.classSizes {
		trials[n] = s.classResult(f, figureRho, n).tallies[cDeLong].trials
	}
	what := map[kind]string{typeI: "Type I error", power: "Power against an AUC higher by 0.02", coverageKind: "Coverage of the AUC difference"}[k]
	ch := chart(k, what+" of two classifiers", "samples (n): ROC AUC, 20 % positives", trials)
	for _, m := range []int{cDeLong, cBootstrap} {
		for _, rho := range s.plan.rhos {
			ser := CalibrationSeries{Name: classShort[m] + ", ρ = " + strconv.FormatFloat(rho, 'g', -1, 64)}
			for _, n := range s.plan.classSizes {
				ser.Points = append(ser.Points, point(n, s.classResult(f, rho, n).tallies[m], k))
			}
			ch.Series = append(ch.Series, ser)
		}
	}
	cut(&ch, k)
	return ch
}

// pct writes a rate and its interval in percent: "5.1 [4.0, 6.4]", in
// bold when flagged.
func pct(r rate, flagged bool) string {
	if r.n == 0 {
		return "–"
	}
	f := func(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) }
	s := f(r.est) + " [" + f(r.low) + ", " + f(r.high) + "]"
	if flagged {
		return "**" + s + "**"
	}
	return s
}

func sizeHeader(prefix string, sizes []int) []string {
	h := []string{}
	for _, n := range sizes {
		h = append(h, prefix+" = "+report.Thousands(int64(n)))
	}
	return h
}

// upTo is the methods 0 to n−1.
func upTo(n int) []int {
	ms := make([]int, n)
	for i := range ms {
		ms[i] = i
	}
	return ms
}

// rateRows adds to t, for each method of ms and each ρ of rhos, a row: the
// method's label (from methods), the cells of lead, ρ, and the rate rateOf
// gives at each size. A rate that mark reports is marked, and listed in
// flags as "- what: label[; where]; ρ = ρ; n = n: rate".
func rateRows(t *report.Table, flags *[]string, what string, methods []method, ms []int, lead []string, where string,
	rhos []float64, sizes []int, rateOf func(m int, rho float64, n int) rate, mark func(rate) bool) {
	for _, m := range ms {
		label := methods[m].label
		if where != "" {
			label += "; " + where
		}
		for _, rho := range rhos {
			row := append(append([]string{methods[m].label}, lead...), rhoText(rho))
			for _, n := range sizes {
				r := rateOf(m, rho, n)
				marked := mark(r)
				if marked {
					*flags = append(*flags, fmt.Sprintf("- %s: %s; ρ = %s; n = %s: %s", what, label, rhoText(rho), report.Thousands(int64(n)), pct(r, false)))
				}
				row = append(row, pct(r, marked))
			}
			t.Add(row...)
		}
	}
}

// typeIMark marks the liberal rates of a type I table, and none of a power
// table's.
func typeIMark(k kind) func(rate) bool {
	return func(r rate) bool { return k == typeI && r.liberal() }
}

func rhoText(rho float64) string { return strconv.FormatFloat(rho, 'g', -1, 64) }

// markdown writes the study's tables and flagged configurations.
func (s *study) markdown(w io.Writer, elapsed time.Duration, workers int) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("Run time: %s with %d workers. Replications per cell: users %s (BCa and the row bootstrap: the first %s, up to n = %s); folds %s at every N; AUC %s.\n\n",
		elapsed.Round(time.Second), workers, repsText(s.plan.userReps), report.Thousands(slowReps), report.Thousands(maxSlowN),
		report.Thousands(int64(s.plan.foldReps)), repsText(s.plan.classReps))
	p("Friedman: %s. Classifier metrics: %s.\n\n", repsText(s.plan.rankReps), repsText(s.plan.metricReps))
	p("Rates in percent with their 99 %% Clopper–Pearson intervals; **bold**: a true null rejected more often than α (interval above 5 %%), or an interval that covers less than 95 %% (interval below 95 %%).\n\n")

	var flags []string
	var shapes []userShape
	if len(s.users) > 0 {
		shapes = userShapes()
	}
	for _, shape := range shapes {
		p("### %s\n\n", shape.title)
		for _, f := range shape.families() {
			k := typeI
			title := "Type I error, both sides alike"
			switch f {
			case meanNull:
				title = "Type I error, equal means, different shapes"
			case lift:
				k, title = power, "Power against a 10 % lift"
			}
			p("<a id=\"%s-%s\"></a>%s (`%s-%s`):\n\n", shape.name, f, title, shape.name, f)
			t := report.Table{Header: append([]string{"method", "ρ"}, sizeHeader("n", s.plan.userSizes)...)}
			rateRows(&t, &flags, "type I", userMethods[:], userTableMethods(shape, k), nil, shape.name+", "+f.String(), s.plan.rhos, s.plan.userSizes,
				func(m int, rho float64, n int) rate {
					res, _ := s.userResult(shape.name, f, rho, n)
					return res.tallies[m].rejection()
				}, typeIMark(k))
			if err := t.Markdown(w); err != nil {
				return err
			}
			p("\n")
		}
		p("<a id=\"%s-coverage\"></a>Coverage of the 95 %% interval (`%s-coverage`): the true difference is 0 under the nulls and 10 %% of the mean under the lift.\n\n", shape.name, shape.name)
		t := report.Table{Header: append([]string{"interval", "truth", "ρ"}, sizeHeader("n", s.plan.userSizes)...)}
		for _, f := range shape.families() {
			rateRows(&t, &flags, "coverage", userMethods[:], userTableMethods(shape, coverageKind), []string{f.String()}, shape.name+", "+f.String(), s.plan.rhos, s.plan.userSizes,
				func(m int, rho float64, n int) rate {
					res, _ := s.userResult(shape.name, f, rho, n)
					return res.tallies[m].coverage()
				}, rate.undercovers)
		}
		if err := t.Markdown(w); err != nil {
			return err
		}
		p("\n<a id=\"%s-zeros\"></a>Share of units whose two values are equal (a zero difference), mean over the replications (`%s-zeros`):\n\n", shape.name, shape.name)
		t = report.Table{Header: append([]string{"truth", "ρ"}, sizeHeader("n", s.plan.userSizes)...)}
		for _, f := range shape.families() {
			for _, rho := range s.plan.rhos {
				row := []string{f.String(), rhoText(rho)}
				for _, n := range s.plan.userSizes {
					res, _ := s.userResult(shape.name, f, rho, n)
					row = append(row, strconv.FormatFloat(100*res.mean, 'f', 0, 64)+" %")
				}
				t.Add(row...)
			}
		}
		if err := t.Markdown(w); err != nil {
			return err
		}
		p("\n")
	}

	if len(s.folds) > 0 {
		if err := s.foldMarkdown(w, &flags); err != nil {
			return err
		}
	}
	if len(s.classes) > 0 {
		if err := s.classMarkdown(w, &flags); err != nil {
			return err
		}
	}
	if len(s.ranks) > 0 {
		if err := s.rankMarkdown(w, &flags); err != nil {
			return err
		}
	}
	if len(s.metrics) > 0 {
		if err := s.metricMarkdown(w, &flags); err != nil {
			return err
		}
	}
	if len(s.poissons) > 0 {
		if err := s.poissonMarkdown(w, &flags); err != nil {
			return err
		}
	}
	if len(s.agrees) > 0 {
		if err := s.agreeMarkdown(w, &flags); err != nil {
			return err
		}
	}
	if len(s.margins) > 0 {
		if err := s.marginMarkdown(w, &flags); err != nil {
			return err
		}
	}
	if len(s.seeds) > 0 {
		if err := s.seedMarkdown(w, &flags); err != nil {
			return err
		}
	}
	p("\n### Flagged\n\n%s\n", strings.Join(flags, "\n"))
	return nil
}

// foldMarkdown writes the cross-validation study's tables, adding the
// configurations it flags to flags.
func (s *study) foldMarkdown(w io.Writer, flags *[]string) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("### Cross-validated learners\n\n")
	for _, f := range []family{sameNull, lift} {
		title, k := "Type I error", typeI
		if f == lift {
			title, k = "Power against a 13 % lower error", power
		}
		p("<a id=\"folds-%s\"></a>%s (`folds-%s`):\n\n", f, title, f)
		t := report.Table{Header: append([]string{"method"}, sizeHeader("N", s.plan.foldSizes)...)}
		for m := range fMethods {
			row := []string{foldMethods[m].label}
			for _, n := range s.plan.foldSizes {
				r := s.foldResult(f, n).tallies[m].rejection()
				lib := k == typeI && r.liberal()
				if lib {
					*flags = append(*flags, fmt.Sprintf("- type I: %s; N = %s: %s", foldMethods[m].label, report.Thousands(int64(n)), pct(r, false)))
				}
				row = append(row, pct(r, lib))
			}
			t.Add(row...)
		}
		if err := t.Markdown(w); err != nil {
			return err
		}
		p("\n")
	}
	p("<a id=\"folds-coverage\"></a>Coverage of the 95 %% interval of the expected difference (`folds-coverage`):\n\n")
	t := report.Table{Header: append([]string{"interval", "truth"}, sizeHeader("N", s.plan.foldSizes)...)}
	for _, f := range []family{sameNull, lift} {
		for m := range fMethods {
			if s.foldResult(f, s.plan.foldSizes[0]).tallies[m].intervals == 0 {
				continue
			}
			row := []string{foldMethods[m].label, f.String()}
			for _, n := range s.plan.foldSizes {
				r := s.foldResult(f, n).tallies[m].coverage()
				under := r.undercovers()
				if under {
					*flags = append(*flags, fmt.Sprintf("- coverage: %s; %s; N = %s: %s", foldMethods[m].label, f, report.Thousands(int64(n)), pct(r, false)))
				}
				row = append(row, pct(r, under))
			}
			t.Add(row...)
		}
	}
	if err := t.Markdown(w); err != nil {
		return err
	}
	p("\n")

	return nil
}

// classMarkdown writes the classifier study's tables, adding the
// configurations it flags to flags.
func (s *study) classMarkdown(w io.Writer, flags *[]string) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("### Classifiers' ROC AUC\n\n")
	for _, f := range []family{sameNull, lift} {
		title, k := "Type I error", typeI
		if f == lift {
			title, k = "Power against an AUC higher by 0.02", power
		}
		p("<a id=\"auc-%s\"></a>%s (`auc-%s`):\n\n", f, title, f)
		t := report.Table{Header: append([]string{"method", "ρ"}, sizeHeader("n", s.plan.classSizes)...)}
		rateRows(&t, flags, "type I", classMethods[:], upTo(cMethods), nil, "", s.plan.rhos, s.plan.classSizes,
			func(m int, rho float64, n int) rate { return s.classResult(f, rho, n).tallies[m].rejection() }, typeIMark(k))
		if err := t.Markdown(w); err != nil {
			return err
		}
		p("\n")
	}
	p("<a id=\"auc-coverage\"></a>Coverage of the 95 %% interval of the AUC difference (`auc-coverage`):\n\n")
	t := report.Table{Header: append([]string{"interval", "truth", "ρ"}, sizeHeader("n", s.plan.classSizes)...)}
	for _, f := range []family{sameNull, lift} {
		rateRows(&t, flags, "coverage", classMethods[:], upTo(cMethods), []string{f.String()}, f.String(), s.plan.rhos, s.plan.classSizes,
			func(m int, rho float64, n int) rate { return s.classResult(f, rho, n).tallies[m].coverage() }, rate.undercovers)
	}
	if err := t.Markdown(w); err != nil {
		return err
	}
	p("\n")
	return nil
}

func repsText(m map[int]int) string {
	var parts []string
	for _, n := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s at n = %s", report.Thousands(int64(m[n])), report.Thousands(int64(n))))
	}
	return strings.Join(parts, ", ")
}
