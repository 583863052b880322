package stats

// DefaultAlpha is the significance level a decision uses when none is
// given.
const DefaultAlpha = 0.05

// Interval is an estimate with a confidence interval [Low, High].
type Interval struct {
	Estimate   float64 `json:"estimate"`
	Low        float64 `json:"ci_low"`
	High       float64 `json:"ci_high"`
	Confidence float64 `json:"confidence"`
}

// ExcludesZero reports whether zero lies outside the interval: Low > 0 or
// High < 0. An interval with a bound at exactly zero does not exclude it.
// Decide is the rule that uses it; it also refuses NaN bounds.
func (iv Interval) ExcludesZero() bool { return iv.Low > 0 || iv.High < 0 }
