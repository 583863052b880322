package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/verdict-ml/verdict/store"
)

// TokenCreated prints a new token's secret alone on w, so that a script can
// capture it, and says on info what it is, once.
func TokenCreated(w, info io.Writer, t *store.Token, secret string) {
	scope := "every experiment"
	if t.Experiment != "" {
		scope = "experiment " + Printable(t.Experiment) + " only"
	}
	fmt.Fprintf(info, "token %d %q, a %s for %s. Its secret follows, shown this once: keep it in a secret store.\n", t.ID, Printable(t.Name), t.Role, scope)
	fmt.Fprintln(w, secret)
}

// Tokens lists tokens, never their secrets.
func Tokens(w io.Writer, format string, list []store.Token) error {
	if format == "json" {
		if list == nil {
			list = []store.Token{}
		}
		return WriteJSON(w, list)
	}
	t := &Table{Header: []string{"ID", "NAME", "ROLE", "EXPERIMENT", "CREATED", "REVOKED"}, Right: map[int]bool{0: true}}
	for _, tok := range list {
		exp, revoked := tok.Experiment, ""
		if exp == "" {
			exp = "(all)"
		}
		if tok.RevokedAt != nil {
			revoked = tok.RevokedAt.Local().Format("2006-01-02 15:04")
		}
		t.Add(strconv.FormatInt(tok.ID, 10), tok.Name, string(tok.Role), exp, tok.CreatedAt.Local().Format("2006-01-02 15:04"), revoked)
		if tok.RevokedAt != nil {
			t.Mark(5, Dim)
		}
	}
	return t.Write(w, format)
}
