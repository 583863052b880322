package scores

import (
	"context"
	"errors"
	"fmt"

	"github.com/verdict-ml/verdict/store"
)

// Log stores the file's rows in st as the evaluation ev, in one transaction:
// with store.LogEvaluation for a file in wide form, and
// store.LogEvaluationLong for one in long form. The file must not have been
// read yet.
//
// When the database finds a (sample ID, draw) twice in a wide file, which it
// reports without a place, Log reads the file again to name the lines (or
// rows) of both: the *store.DuplicateError it returns then has Where set,
// as "scores.csv: line 9 (first at scores.csv: line 2)". Other errors are
// the store's and the reader's, unchanged: errors about the file's content
// wrap ErrBadInput or store.ErrBadInput.
func (s *Scores) Log(ctx context.Context, st *store.Store, ev store.NewEvaluation) (*store.Logged, error) {
	if s.long != nil {
		return st.LogEvaluationLong(ctx, ev, s.long)
	}
	logged, err := st.LogEvaluation(ctx, ev, s.wide)
	var dup *store.DuplicateError
	if errors.As(err, &dup) && dup.Where == "" {
		err = s.locate(dup)
	}
	return logged, err
}

// locate reads the file again for the first two rows of the duplicate dup,
// and returns dup with their places, or dup as it is when the file does not
// read the same any more.
func (s *Scores) locate(dup *store.DuplicateError) error {
	if s.reopen == nil {
		return dup
	}
	again, err := s.reopen()
	if err != nil {
		return dup
	}
	defer again.Close()
	r := again.Wide()
	var where []string
	for len(where) < 2 && r.Next() {
		if r.SampleID() == dup.SampleID && r.Draw() == dup.Draw {
			where = append(where, r.Where())
		}
	}
	if len(where) < 2 {
		return dup
	}
	located := *dup
	located.Where = fmt.Sprintf("%s (first at %s)", where[1], where[0])
	return &located
}
