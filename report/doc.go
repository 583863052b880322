// Package report renders what verdict shows people: aligned tables for the
// terminal, and (as the product grows) Markdown, JSON, CSV and plots. It
// formats values it is given; it does not query the database or compute
// statistics.
package report
